package client

import (
	"testing"
	"unsafe"
)

// Every Record a caller produces is allocated at Record's size class: 160
// bytes (as kgo's Record), where one more field would take it to 176. The
// delivery fields stay within 32 bytes of each other (one cache miss at
// callback time, see Record).
func TestRecordSize(t *testing.T) {
	var r Record
	if n := unsafe.Sizeof(r); n != 160 {
		t.Errorf("Record is %d bytes, want 160 (a size class; 176 is the next)", n)
	}
	lo, hi := unsafe.Offsetof(r.Partition), unsafe.Offsetof(r.userCb)+unsafe.Sizeof(r.userCb)
	for _, off := range []uintptr{unsafe.Offsetof(r.direct), unsafe.Offsetof(r.Offset), unsafe.Offsetof(r.cb)} {
		if off < lo || off >= hi {
			t.Errorf("a delivery field at offset %d, outside [%d, %d)", off, lo, hi)
		}
	}
	if hi-lo > 32 {
		t.Errorf("delivery fields span %d bytes, want at most 32", hi-lo)
	}
}
