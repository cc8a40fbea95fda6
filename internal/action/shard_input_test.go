package action

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/routeguard/routeguard/internal/guard"
)

// A shard file is the merge's input: reading one counts its bytes toward
// the automatic memory ceiling (guard.InputBytes), or a merge of large
// shards would stop at the baseline with "0 KiB of input read".
func TestReadShardFileCountsInput(t *testing.T) {
	p := filepath.Join(t.TempDir(), "shard-1.json")
	data := `{"format":"` + ShardFormat + `","version":99,"pad":"` + strings.Repeat("x", 100000) + `"}`
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	before := guard.InputBytes()
	_, err := readShardFile(p, 1<<20)
	if err == nil || !strings.Contains(err.Error(), "version 99") {
		t.Fatalf("readShardFile: %v, want the version refused", err)
	}
	if got := guard.InputBytes() - before; got != int64(len(data)) {
		t.Errorf("reading a %d-byte shard file counted %d bytes of input", len(data), got)
	}
}
