package pluginhost

import (
	"testing"

	"github.com/routeguard/routeguard/internal/analysis"
	"github.com/routeguard/routeguard/plugins/sdk"
)

func BenchmarkEncode10k(b *testing.B) {
	req, _ := request(analysis.NewContext(routes(b, 10000), nil, ""), &sdk.Metadata{}, nil)
	b.ResetTimer()
	for range b.N {
		enc, _ := sdk.EncodeRequest(req)
		b.SetBytes(int64(len(enc)))
	}
}

func BenchmarkDecode10k(b *testing.B) {
	req, _ := request(analysis.NewContext(routes(b, 10000), nil, ""), &sdk.Metadata{}, nil)
	enc, _ := sdk.EncodeRequest(req)
	b.SetBytes(int64(len(enc)))
	b.ResetTimer()
	for range b.N {
		if _, err := sdk.DecodeRequest(enc); err != nil {
			b.Fatal(err)
		}
	}
}
