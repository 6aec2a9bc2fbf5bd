package readback

import (
	"testing"
)

func marker(pid int64, commit bool, off int64) Record {
	typ := byte(0)
	if commit {
		typ = 1
	}
	return Record{Offset: off, ProducerID: pid, Control: true, Transactional: true, Key: []byte{0, 0, 0, typ}}
}

func data(pid int64, txn bool, off int64, v string) Record {
	return Record{Offset: off, ProducerID: pid, Transactional: txn, Value: []byte(v)}
}

func TestCommittedShowsCommittedHidesAbortedAndOpen(t *testing.T) {
	log := map[int32][]Record{0: {
		data(1, true, 0, "a1"),
		data(2, true, 1, "b1"),
		data(3, false, 2, "plain"),
		data(1, true, 3, "a2"),
		marker(2, false, 4), // b aborted
		marker(1, true, 5),  // a committed
		data(2, true, 6, "b2"),
		marker(2, true, 7),
		data(1, true, 8, "a3"), // open: above the LSO
	}}
	got := Committed(log)[0]
	var vals []string
	for _, r := range got {
		vals = append(vals, string(r.Value))
	}
	want := []string{"a1", "plain", "a2", "b2"}
	if len(vals) != len(want) {
		t.Fatalf("read_committed view %q, want %q", vals, want)
	}
	for i := range want {
		if vals[i] != want[i] {
			t.Fatalf("read_committed view %q, want %q", vals, want)
		}
	}
}
