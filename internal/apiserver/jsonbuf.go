package apiserver

import (
	"bytes"
	"encoding/json"
	"sync"
)

// jsonBuffers are reused by encodeJSON: built-in objects are validated
// from their JSON encoding (the API server's decoder reads bytes), one
// buffer per object otherwise, grown from nothing each time.
var jsonBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledJSON keeps an unusually large object's buffer out of the pool.
const maxPooledJSON = 1 << 20

// encodeJSON encodes v as json.Marshal does (HTML characters escaped,
// map keys sorted; plus a trailing newline, which decoders skip) into a
// pooled buffer; release returns it, after which data must not be used.
func encodeJSON(v any) (data []byte, release func(), err error) {
	buf := jsonBuffers.Get().(*bytes.Buffer)
	buf.Reset()
	release = func() {
		if buf.Cap() <= maxPooledJSON {
			jsonBuffers.Put(buf)
		}
	}
	if err := json.NewEncoder(buf).Encode(v); err != nil {
		release()
		return nil, func() {}, err
	}
	return buf.Bytes(), release, nil
}
