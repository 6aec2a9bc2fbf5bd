package idempotence

import "time"

// status is where a batch stands.
type status uint8

const (
	stQueued        status = iota // never sent under its current numbering (no sequence)
	stInFlight                    // written, response pending
	stNotAppended                 // numbered, every attempt known not appended: resend unchanged
	stMaybeAppended               // numbered, an attempt's outcome is unknown: resend unchanged
	stAcked                       // in the log; waits for the batches before it to finish
	stAwaitSplit                  // refused as too large, waits for Split
)

var statusNames = [...]string{"queued", "in-flight", "not-appended", "maybe-appended", "acked", "await-split"}

func (s status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "status(?)"
}

// batch is one batch of a partition.
type batch struct {
	id       BatchID
	records  int32
	deadline time.Time
	stamp    time.Time // largest record timestamp, zero if unknown (split parts inherit it)

	st       status
	numbered bool // pid, epoch and seq are assigned
	pid      int64
	epoch    int16
	seq      int32
	order    uint64 // when it was numbered, counted per partition: our batches lie in the log in this order

	unknown  bool  // some attempt's outcome is unresolved: never renumber
	expired  bool  // delivery deadline passed
	reported bool  // the caller was told its outcome is unknown (Failed); kept only for the sequence accounting, never sent again
	fatal    error // non-retriable refusal, final once the log shows the batch absent
	tooLarge bool  // MESSAGE_TOO_LARGE, split once the log shows the batch absent
	offset   int64 // base offset once acked, -1 if unknown
	corrupt  int   // CORRUPT_MESSAGE answers so far
	old      bool  // of a deleted topic (recreated): delivered or left as it stands, never sent again
}

// waitingResend reports a numbered batch that must be written again.
func (b *batch) waitingResend() bool {
	return b.st == stNotAppended || b.st == stMaybeAppended
}

// rejected records an attempt the broker refused: the batch is not appended
// by this attempt, but stays "maybe" if an earlier attempt was unknown.
func (b *batch) rejected() {
	if b.unknown {
		b.st = stMaybeAppended
	} else {
		b.st = stNotAppended
	}
}
