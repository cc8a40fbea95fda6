package manifest

import (
	"bytes"
	"fmt"
)

// maxDocumentNodes bounds the YAML nodes of one document. The YAML decoder
// builds a tree of every node of a document before routeguard sees it, at
// ~200 bytes a node: 58 MB of "- a" lines are 14 million nodes, ~3 GB. A
// large CustomResourceDefinition holds a few hundred thousand.
const maxDocumentNodes = 1_000_000

// A YAML node takes at least half a byte of text ("[:,:,:]" is 3 nodes
// per 2 bytes), so text shorter than this cannot hold too many.
const nodeScanMinBytes = maxDocumentNodes / 2

// checkNodes refuses, before the decoder builds its tree, a document of
// data holding more than maxDocumentNodes nodes (an estimate from a scan of
// the text that counts every scalar, collection and indicator, so that it
// errs on the high side only where YAML is dense).
func checkNodes(file string, data []byte) error {
	if len(data) < nodeScanMinBytes {
		return nil
	}
	var s nodeScan
	return s.run(data, func(doc, line, nodes int) error {
		if nodes <= maxDocumentNodes {
			return nil
		}
		return &Error{File: file, Line: line, Msg: fmt.Sprintf(
			"document %d holds about %d YAML nodes, more than the %d routeguard decodes in one document "+
				"(each takes memory to decode: the file would cost gigabytes); split it into smaller documents",
			doc, nodes, maxDocumentNodes)}
	})
}

// nodeScan counts the nodes of YAML text line by line: plain, quoted and
// block scalars (a block scalar's lines count once), flow and block
// collections, mapping and sequence indicators, aliases; comments,
// anchors, tags and directives count nothing.
type nodeScan struct {
	flow        int  // depth of flow collections
	quote       byte // '"' or '\'' while inside a quoted scalar
	block       bool // inside a block scalar
	blockIndent int  // the indentation of the line that started it
}

// run calls done for each document (1-based number, first line, node
// count) and stops at its first error.
func (s *nodeScan) run(data []byte, done func(doc, line, nodes int) error) error {
	doc, start, nodes := 1, 1, 0
	for lineNo := 1; len(data) > 0; lineNo++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if s.quote == 0 && s.flow == 0 && isDocumentMarker(line) {
			if nodes > 0 || !bytes.HasPrefix(line, []byte("---")) {
				if err := done(doc, start, nodes); err != nil {
					return err
				}
				doc, start, nodes = doc+1, lineNo, 0
			}
			s.block = false
			line = line[3:]
		}
		nodes += s.line(line)
	}
	return done(doc, start, nodes)
}

func isDocumentMarker(line []byte) bool {
	return (bytes.HasPrefix(line, []byte("---")) || bytes.HasPrefix(line, []byte("..."))) &&
		(len(line) == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\r')
}

// line counts the nodes that start on one line.
func (s *nodeScan) line(line []byte) int {
	indent := 0
	for indent < len(line) && line[indent] == ' ' {
		indent++
	}
	if s.block {
		if rest := bytes.TrimSpace(line); len(rest) == 0 || indent > s.blockIndent {
			return 0
		}
		s.block = false
	}
	if s.quote == 0 && s.flow == 0 && len(line) > 0 && line[0] == '%' {
		return 0 // a directive
	}
	nodes := 0
	space := true // at a position where a token may start
	for i := indent; i < len(line); i++ {
		c := line[i]
		if s.quote != 0 {
			i = s.skipQuoted(line, i)
			space = false
			continue
		}
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			space = true
			continue
		case c == '#' && space:
			return nodes
		case !space && c != ',' && c != '[' && c != ']' && c != '{' && c != '}' && c != ':':
			continue
		}
		next := byte(' ')
		if i+1 < len(line) {
			next = line[i+1]
		}
		indicatorEnd := next == ' ' || next == '\t' || next == '\r' || (s.flow > 0 && (next == ',' || next == ']' || next == '}'))
		space = false
		switch c {
		case '"', '\'':
			nodes++
			s.quote = c
		case '[', '{':
			nodes++
			s.flow++
			space = true
		case ']', '}':
			s.flow = max(s.flow-1, 0)
		case ',':
			space = true
		case '-', '?', ':':
			if indicatorEnd || i+1 == len(line) {
				nodes++
				space = true
			} else if c != ':' {
				nodes++ // a plain scalar starting with - or ?
				i = plainEnd(line, i, s.flow > 0)
			}
		case '|', '>':
			if s.flow == 0 {
				nodes++
				s.block, s.blockIndent = true, indent
				return nodes
			}
			nodes++
			i = plainEnd(line, i, true)
		case '&', '!':
			for i+1 < len(line) && line[i+1] != ' ' && line[i+1] != '\t' {
				i++ // an anchor or a tag: the node after it counts
			}
			space = true
		case '*':
			nodes++
			i = plainEnd(line, i, s.flow > 0)
		default:
			nodes++
			i = plainEnd(line, i, s.flow > 0)
		}
	}
	return nodes
}

// skipQuoted returns the position of the closing quote at or after i, or
// the end of the line (the scalar goes on).
func (s *nodeScan) skipQuoted(line []byte, i int) int {
	for ; i < len(line); i++ {
		switch {
		case s.quote == '"' && line[i] == '\\':
			i++
		case line[i] == s.quote && s.quote == '\'' && i+1 < len(line) && line[i+1] == '\'':
			i++
		case line[i] == s.quote:
			s.quote = 0
			return i
		}
	}
	return i
}

// plainEnd returns the position of the last byte of the plain scalar that
// starts at i: it ends before ": ", " #", the line's end, and in flow
// context before , [ ] { }.
func plainEnd(line []byte, i int, flow bool) int {
	for j := i + 1; j < len(line); j++ {
		c := line[j]
		switch {
		case c == ':' && (j+1 == len(line) || line[j+1] == ' ' || line[j+1] == '\t' || (flow && (line[j+1] == ',' || line[j+1] == ']' || line[j+1] == '}'))):
			return j - 1
		case c == '#' && (line[j-1] == ' ' || line[j-1] == '\t'):
			return j - 1
		case flow && (c == ',' || c == '[' || c == ']' || c == '{' || c == '}'):
			return j - 1
		}
	}
	return len(line) - 1
}
