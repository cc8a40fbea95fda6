package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseTargets(t *testing.T) {
	tests := []struct {
		name  string
		specs []string
		want  []Target
		err   string
	}{
		{name: "stdout only", specs: []string{"text"}, want: []Target{{Format: "text"}}},
		{name: "dash is stdout", specs: []string{"json=-"}, want: []Target{{Format: "json"}}},
		{name: "one stdout and files, order kept",
			specs: []string{"gitlab=gl.json", "text", "sarif=out/rg.sarif", "junit=junit.xml"},
			want:  []Target{{"gitlab", "gl.json"}, {"text", ""}, {"sarif", "out/rg.sarif"}, {"junit", "junit.xml"}}},
		{name: "a file name holding '='", specs: []string{"json=a=b.json"}, want: []Target{{"json", "a=b.json"}}},
		{name: "the same format to two files", specs: []string{"json=a.json", "json=b.json"}, want: []Target{{"json", "a.json"}, {"json", "b.json"}}},
		{name: "two to stdout", specs: []string{"text", "sarif"},
			err: "--report text and --report sarif both go to standard output, which holds one report: give all but one a file (FORMAT=FILE)"},
		{name: "two to stdout, one by dash", specs: []string{"text", "json=-"}, err: "both go to standard output"},
		{name: "one file twice", specs: []string{"json=out/r.json", "sarif=out/./r.json"},
			err: "--report json=out/r.json and --report sarif=out/./r.json write the same file"},
		{name: "unknown format", specs: []string{"xml=r.xml"},
			err: `--report "xml=r.xml": unknown format "xml": use FORMAT or FORMAT=FILE with FORMAT one of ` + strings.Join(Formats(), ", ")},
		{name: "empty file", specs: []string{"sarif="}, err: `--report "sarif=" names no file after '='`},
		{name: "empty", specs: []string{""}, err: `unknown format ""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseTargets(tt.specs)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("target %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// TestRenderAll: each target holds exactly what its format's writer alone
// writes, and colour reaches only a text report on standard output.
func TestRenderAll(t *testing.T) {
	ts := []Target{{"text", ""}, {"text", "t.txt"}, {"sarif", "r.sarif"}, {"gitlab", "gl.json"}, {"junit", "j.xml"}}
	rs, err := RenderAll(ts, sample, Options{Color: true, Version: "v1.2.3"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != len(ts) {
		t.Fatalf("%d reports, want %d", len(rs), len(ts))
	}
	for i, r := range rs {
		if r.Target != ts[i] {
			t.Errorf("report %d is for %v, want %v", i, r.Target, ts[i])
		}
		want := render(t, r.Format, Options{Color: r.Stdout() && r.Format == "text", Version: "v1.2.3"}, sample)
		if string(r.Content) != want {
			t.Errorf("%v differs from the %s writer's own report:\n%s\nwant:\n%s", r.Target, r.Format, r.Content, want)
		}
	}
	if !strings.Contains(string(rs[0].Content), ansiRed) || strings.Contains(string(rs[1].Content), "\x1b[") {
		t.Errorf("colour: stdout text %q, file text %q", rs[0].Content, rs[1].Content)
	}
	stdout, files := Split(rs)
	if string(stdout) != string(rs[0].Content) || len(files) != 4 || files[0].File != "t.txt" {
		t.Errorf("Split: stdout %q, files %v", stdout, files)
	}
	if stdout, _ := Split(rs[1:]); stdout != nil {
		t.Errorf("Split without a stdout target gave %q", stdout)
	}
	// No findings still writes every report (an empty Code Quality report
	// is a statement: nothing found).
	empty, err := RenderAll([]Target{{"gitlab", "gl.json"}}, nil, Options{})
	if err != nil || strings.TrimSpace(string(empty[0].Content)) != "[]" {
		t.Errorf("empty gitlab report = %q, %v", empty[0].Content, err)
	}
}

func TestWriteFiles(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old.json")
	if err := os.WriteFile(old, []byte("stale"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A symbolic link at a report's path is replaced, not followed.
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.sarif")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	rs := []Rendered{
		{Target{"text", ""}, []byte("to stdout")},
		{Target{"json", old}, []byte("new json\n")},
		{Target{"sarif", link}, []byte("sarif\n")},
		{Target{"gitlab", filepath.Join(dir, "gl.json")}, []byte("[]\n")},
	}
	if err := CheckFiles(targetsOf(rs)); err != nil {
		t.Fatal(err)
	}
	if err := WriteFiles(rs); err != nil {
		t.Fatal(err)
	}
	for _, r := range rs[1:] {
		got, err := os.ReadFile(r.File)
		if err != nil || string(got) != string(r.Content) {
			t.Errorf("%s = %q, %v; want %q", r.File, got, err, r.Content)
		}
		fi, err := os.Lstat(r.File)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v, %v; want a regular file 0644", r.File, fi.Mode(), err)
		}
	}
	if got, _ := os.ReadFile(victim); string(got) != "keep" {
		t.Errorf("the link's target was written: %q", got)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "gl.json link.sarif old.json victim" {
		t.Errorf("directory holds %v: a temporary file or probe was left behind", names)
	}
}

func TestFilesNotWritable(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		target Target
		err    string
	}{
		{"missing directory", Target{"sarif", filepath.Join(dir, "out", "rg.sarif")},
			"--report sarif=" + filepath.Join(dir, "out", "rg.sarif") + ": cannot write " + filepath.Join(dir, "out", "rg.sarif") + ": directory " + filepath.Join(dir, "out") + " does not exist; create it first"},
		{"a directory", Target{"junit", dir}, "--report junit=" + dir + ": " + dir + " is a directory; name a file"},
		{"below a file", Target{"json", filepath.Join(file, "r.json")}, "cannot write " + filepath.Join(file, "r.json")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckFiles([]Target{{"text", ""}, tt.target})
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("CheckFiles: %v, want %q", err, tt.err)
			}
			if tt.target.File == dir {
				return
			}
			err = WriteFiles([]Rendered{{tt.target, []byte("r")}})
			if err == nil || !strings.Contains(err.Error(), "cannot write "+tt.target.File) {
				t.Errorf("WriteFiles: %v", err)
			}
		})
	}
	// A failed rename (the target became a directory) leaves no temporary
	// file behind.
	sub := filepath.Join(dir, "sub")
	if err := os.MkdirAll(filepath.Join(sub, "r.json", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFiles([]Rendered{{Target{"json", filepath.Join(sub, "r.json")}, []byte("r")}}); err == nil {
		t.Error("renaming over a non-empty directory succeeded")
	}
	if entries, _ := os.ReadDir(sub); len(entries) != 1 {
		t.Errorf("%s holds %d entries after a failed write, want only r.json", sub, len(entries))
	}
}

func targetsOf(rs []Rendered) []Target {
	var ts []Target
	for _, r := range rs {
		ts = append(ts, r.Target)
	}
	return ts
}
