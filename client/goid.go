package client

import (
	"bytes"
	"runtime"
	"strconv"
)

// goroutineID returns the calling goroutine's id, read from its stack
// header ("goroutine 42 [running]:"). It is used only off the hot path:
// Flush, Close and ProduceSync ask whether they are called from a record
// callback, where waiting for callbacks would wait for themselves.
func goroutineID() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, _ := strconv.ParseUint(string(b), 10, 64)
	return id
}
