package sdk

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// The request carries objects in a compact binary form of JSON values:
// a tag byte, then varint lengths and raw bytes. encoding/json spends
// most of a 10,000-object round trip sorting map keys, escaping and
// parsing numbers; this form does none of it, keeps int64 apart from
// float64, and decodes strings as substrings of one copy of the message.
const (
	tagNil byte = iota
	tagFalse
	tagTrue
	tagInt
	tagFloat
	tagString
	tagArray
	tagMap
)

// requestMagic starts an encoded request (and versions its layout).
const requestMagic = "RGQ2"

// ChunkSize is about how many bytes of objects one message of the Analyze
// stream carries. The host never holds more than one chunk of encoded
// objects, and the plugin decodes a chunk while the next one is encoded.
const ChunkSize = 256 << 10

// maxObjects bounds the object count a request may announce, so a hostile
// header cannot make the decoder reserve memory it will never fill.
const maxObjects = 50_000_000

// The request travels as a stream of chunks. The first starts with the
// header (magic, default namespace, config, object count); every chunk
// then holds whole objects (file, line, context flag, body), so the
// concatenation of the chunks is the request as one message, which is what
// EncodeRequest and DecodeRequest deal in.

// encodeRequest encodes req in chunks of about chunkSize bytes and hands
// each to emit, which owns it (a new buffer is used for the next one).
func encodeRequest(req *Request, chunkSize int, emit func([]byte) error) error {
	// A chunk ends after the object that takes it past chunkSize; a small
	// request gets a buffer its size (objects take ~300-700 bytes).
	b := make([]byte, 0, min(chunkSize+chunkSize/4, 1024+512*len(req.Objects)))
	b = append(b, requestMagic...)
	b = appendString(b, req.DefaultNamespace)
	b = appendString(b, string(req.Config))
	b = binary.AppendUvarint(b, uint64(len(req.Objects)))
	var err error
	for i := range req.Objects {
		o := &req.Objects[i]
		b = appendString(b, o.File)
		b = binary.AppendUvarint(b, uint64(max(o.Line, 0)))
		if o.Context {
			b = append(b, tagTrue)
		} else {
			b = append(b, tagFalse)
		}
		if b, err = appendValue(b, o.Body); err != nil {
			return fmt.Errorf("object %d (%s:%d): %w", i, o.File, o.Line, err)
		}
		if len(b) >= chunkSize && i < len(req.Objects)-1 {
			if err := emit(b); err != nil {
				return err
			}
			b = make([]byte, 0, chunkSize+chunkSize/4)
		}
	}
	return emit(b)
}

// EncodeRequest encodes req as one message (the concatenation of the
// chunks the Analyze stream carries). Plugin tests use it with
// DecodeRequest to see objects exactly as a plugin receives them.
func EncodeRequest(req *Request) ([]byte, error) {
	var out []byte
	err := encodeRequest(req, ChunkSize, func(b []byte) error {
		if out == nil {
			out = b
		} else {
			out = append(out, b...)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DecodeRequest decodes a request encoded by EncodeRequest and fills in
// each object's identifying fields. data is copied.
func DecodeRequest(data []byte) (*Request, error) {
	var rd requestDecoder
	if err := rd.chunk(string(data)); err != nil {
		return nil, err
	}
	return rd.finish()
}

// requestDecoder decodes a request chunk by chunk.
type requestDecoder struct {
	req    *Request
	want   uint64 // objects announced by the header
	chunks int
	box    boxer
}

// chunk decodes one chunk. Decoded strings are substrings of s.
func (rd *requestDecoder) chunk(s string) error {
	d := &decoder{s: s, box: rd.box}
	defer func() { rd.box = d.box }()
	rd.chunks++
	if rd.req == nil {
		if len(s) < len(requestMagic) || s[:len(requestMagic)] != requestMagic {
			return errors.New("decoding request: not a routeguard plugin request (another protocol version?)")
		}
		d.i = len(requestMagic)
		rd.req = &Request{DefaultNamespace: d.str()}
		if cfg := d.str(); cfg != "" {
			rd.req.Config = []byte(cfg)
		}
		rd.want = d.uvarint()
		if d.err == nil && rd.want > maxObjects {
			d.fail("object count %d exceeds %d", rd.want, maxObjects)
		}
		if d.err == nil {
			rd.req.Objects = make([]Object, 0, min(rd.want, 1<<16))
		}
	}
	for d.err == nil && d.i < len(d.s) {
		if uint64(len(rd.req.Objects)) >= rd.want {
			d.fail("more objects than the %d announced", rd.want)
			break
		}
		o := Object{File: d.str()}
		o.Line = int(d.uvarint())
		o.Context = d.byte() == tagTrue
		body, _ := d.value(0).(map[string]any)
		if d.err != nil {
			break
		}
		o.Body = body
		o.fill()
		rd.req.Objects = append(rd.req.Objects, o)
	}
	if d.err != nil {
		return fmt.Errorf("decoding request (chunk %d): %w", rd.chunks, d.err)
	}
	return nil
}

// finish returns the request once every chunk has been decoded.
func (rd *requestDecoder) finish() (*Request, error) {
	if rd.req == nil {
		return nil, errors.New("decoding request: no data")
	}
	if got := uint64(len(rd.req.Objects)); got != rd.want {
		return nil, fmt.Errorf("decoding request: %d objects received, %d announced (the stream was cut short)", got, rd.want)
	}
	return rd.req, nil
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendValue(b []byte, v any) ([]byte, error) {
	var err error
	switch t := v.(type) {
	case nil:
		return append(b, tagNil), nil
	case bool:
		if t {
			return append(b, tagTrue), nil
		}
		return append(b, tagFalse), nil
	case string:
		return appendString(append(b, tagString), t), nil
	case int64:
		return binary.AppendVarint(append(b, tagInt), t), nil
	case int:
		return binary.AppendVarint(append(b, tagInt), int64(t)), nil
	case int32:
		return binary.AppendVarint(append(b, tagInt), int64(t)), nil
	case float64:
		return binary.LittleEndian.AppendUint64(append(b, tagFloat), math.Float64bits(t)), nil
	case []any:
		b = binary.AppendUvarint(append(b, tagArray), uint64(len(t)))
		for _, x := range t {
			if b, err = appendValue(b, x); err != nil {
				return nil, err
			}
		}
		return b, nil
	case map[string]any:
		b = binary.AppendUvarint(append(b, tagMap), uint64(len(t)))
		for k, x := range t {
			b = appendString(b, k)
			if b, err = appendValue(b, x); err != nil {
				return nil, err
			}
		}
		return b, nil
	}
	return nil, fmt.Errorf("value of type %T is not JSON-compatible", v)
}

// maxDepth bounds nesting, so a hostile message cannot exhaust the stack.
const maxDepth = 512

type decoder struct {
	s   string
	i   int
	err error
	box boxer
}

func (d *decoder) fail(format string, a ...any) {
	if d.err == nil {
		d.err = fmt.Errorf(format+" at byte %d", append(a, d.i)...)
	}
}

func (d *decoder) byte() byte {
	if d.err != nil || d.i >= len(d.s) {
		d.fail("unexpected end")
		return 0
	}
	c := d.s[d.i]
	d.i++
	return c
}

func (d *decoder) uvarint() uint64 {
	var x uint64
	for shift := uint(0); shift < 64; shift += 7 {
		c := d.byte()
		if d.err != nil {
			return 0
		}
		x |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return x
		}
	}
	d.fail("varint overflows")
	return 0
}

func (d *decoder) str() string {
	n := d.uvarint()
	if d.err != nil {
		return ""
	}
	if n > uint64(len(d.s)-d.i) {
		d.fail("string of %d bytes exceeds the message", n)
		return ""
	}
	s := d.s[d.i : d.i+int(n)]
	d.i += int(n)
	return s
}

func (d *decoder) value(depth int) any {
	if depth > maxDepth {
		d.fail("nesting deeper than %d", maxDepth)
		return nil
	}
	switch tag := d.byte(); tag {
	case tagNil:
		return nil
	case tagFalse:
		return false
	case tagTrue:
		return true
	case tagInt:
		u := d.uvarint()
		return d.box.int64(int64(u>>1) ^ -int64(u&1))
	case tagFloat:
		if len(d.s)-d.i < 8 {
			d.fail("short float")
			return nil
		}
		f := math.Float64frombits(binary.LittleEndian.Uint64([]byte(d.s[d.i : d.i+8])))
		d.i += 8
		return f
	case tagString:
		return d.box.string(d.str())
	case tagArray:
		n := d.uvarint()
		if n > uint64(len(d.s)-d.i) {
			d.fail("array of %d items exceeds the message", n)
			return nil
		}
		out := d.box.slice(int(n))
		for i := range out {
			out[i] = d.value(depth + 1)
		}
		return out
	case tagMap:
		n := d.uvarint()
		if n > uint64(len(d.s)-d.i) {
			d.fail("map of %d entries exceeds the message", n)
			return nil
		}
		out := make(map[string]any, n)
		for range n {
			k := d.str()
			out[k] = d.value(depth + 1)
			if d.err != nil {
				return nil
			}
		}
		return out
	default:
		if d.err == nil {
			d.fail("unknown tag %d", tag)
		}
	}
	return nil
}
