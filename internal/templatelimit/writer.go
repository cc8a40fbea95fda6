package templatelimit

import (
	"bytes"
	"fmt"
)

// ErrOutputTooLarge is what a Writer returns once its limit is passed.
type ErrOutputTooLarge struct{ Max int64 }

func (e *ErrOutputTooLarge) Error() string {
	return fmt.Sprintf("the template's output passed the %s limit of one template's output (raise --max-file-size if it is legitimate)", human(e.Max))
}

// Writer is a buffer that refuses to grow past Max bytes: text/template
// stops executing at the first refused write.
type Writer struct {
	Max int64
	buf bytes.Buffer
}

func (w *Writer) Write(p []byte) (int, error) {
	if int64(w.buf.Len())+int64(len(p)) > w.Max {
		return 0, &ErrOutputTooLarge{Max: w.Max}
	}
	return w.buf.Write(p)
}

// String is what was written.
func (w *Writer) String() string { return w.buf.String() }
