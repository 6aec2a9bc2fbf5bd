package idempotence

import "github.com/rollsafe/rollsafe/kafkaerr"

// outcome is what one produce attempt means for its batch.
type outcome uint8

const (
	outAppended   outcome = iota // in the log
	outDuplicate                 // in the log, offset unknown
	outNotApp                    // not appended, retry unchanged
	outMaybe                     // unknown, retry unchanged
	outFatal                     // not appended, do not retry
	outOutOfOrder                // OUT_OF_ORDER_SEQUENCE_NUMBER
	outStaleEpoch                // INVALID_PRODUCER_EPOCH
	outUnknownPID                // UNKNOWN_PRODUCER_ID
	outTooLarge                  // MESSAGE_TOO_LARGE
	outCorrupt                   // CORRUPT_MESSAGE: not appended, retried a bounded number of times
)

// byAction is the outcome of each kafkaerr.Action.
var byAction = [...]outcome{
	kafkaerr.RetryMaybe:      outMaybe,
	kafkaerr.Ack:             outAppended,
	kafkaerr.AckDuplicate:    outDuplicate,
	kafkaerr.Retry:           outNotApp,
	kafkaerr.RetryBounded:    outCorrupt,
	kafkaerr.Fail:            outFatal,
	kafkaerr.OutOfOrder:      outOutOfOrder,
	kafkaerr.StaleEpoch:      outStaleEpoch,
	kafkaerr.UnknownProducer: outUnknownPID,
	kafkaerr.TooLarge:        outTooLarge,
}

// classify decides what a response means: a Kafka code by the table in
// package kafkaerr under the acks in Config, no answer (kafkaerr.Transport)
// by the caller's class.
func classify(r Response, leaderAcks bool) outcome {
	if r.Code == kafkaerr.Transport {
		switch r.Class {
		case Appended:
			return outAppended
		case NotAppended:
			return outNotApp
		case NotAppendedFatal:
			return outFatal
		}
		return outMaybe
	}
	if a := r.Code.Action(!leaderAcks); int(a) < len(byAction) {
		return byAction[a]
	}
	return outMaybe
}
