package idempotence

import (
	"testing"

	"github.com/rollsafe/rollsafe/protocol"
)

// The codes this package decides on by number are Kafka's: each one's
// number and name agree with protocol's error table (Apache Kafka's Errors
// enum), so a typo here cannot go unnoticed (as 76 for UNKNOWN_LEADER_EPOCH
// once did in the simulator).
func TestCodesMatchProtocolTable(t *testing.T) {
	for code, name := range codeNames {
		if code == CodeTransport {
			continue // rollsafe's own: a failed connection, not a Kafka code
		}
		got, _, _ := protocol.CodeInfo(code)
		if got != name {
			t.Errorf("code %d is %s here, %s in protocol's table", code, name, got)
		}
	}
}
