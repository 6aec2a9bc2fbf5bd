package kafkaerr_test

import (
	"fmt"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

// A partition's answer to a produce, as a broker sent it (an int16 on the
// wire), looked up in the table.
func Example() {
	var wire int16 = 6 // from a ProduceResponse
	c := kafkaerr.Code(wire)
	fmt.Println(c, c.Retriable(), c.RefreshMetadata())
	fmt.Println("acks=1:", c.ProduceOutcome(false), c.Action(false))
	fmt.Println("acks=all:", c.ProduceOutcome(true), c.Action(true))
	fmt.Println(kafkaerr.Code(-1), "is not", kafkaerr.Transport)
	// Output:
	// NOT_LEADER_OR_FOLLOWER true true
	// acks=1: not-appended retry
	// acks=all: maybe-appended retry-maybe
	// UNKNOWN_SERVER_ERROR is not TRANSPORT
}
