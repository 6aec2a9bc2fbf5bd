package idempotence

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

// The pure core imports the standard library and kafkaerr only: no
// network, no TLS, no wire codec (go list -deps ./idempotence).
func TestImportsOnlyStdlibAndKafkaerr(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	want := []string{"github.com/rollsafe/rollsafe/kafkaerr", "github.com/rollsafe/rollsafe/idempotence"}
	if got := strings.Fields(string(out)); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("idempotence depends on %v outside the standard library, want %v", got, want)
	}
}

// Every Kafka code and no answer classify as kafkaerr's table says, under
// both acks; CORRUPT_MESSAGE is bounded by corruptOutcome.
func TestClassifyFollowsTable(t *testing.T) {
	want := map[kafkaerr.Action]outcome{
		kafkaerr.RetryMaybe: outMaybe, kafkaerr.Ack: outAppended, kafkaerr.AckDuplicate: outDuplicate,
		kafkaerr.Retry: outNotApp, kafkaerr.RetryBounded: outCorrupt, kafkaerr.Fail: outFatal,
		kafkaerr.OutOfOrder: outOutOfOrder, kafkaerr.StaleEpoch: outStaleEpoch,
		kafkaerr.UnknownProducer: outUnknownPID, kafkaerr.TooLarge: outTooLarge,
	}
	for _, leaderAcks := range []bool{false, true} {
		for c := kafkaerr.Code(-3); c < 200; c++ {
			if got := classify(Response{Code: c}, leaderAcks); got != want[c.Action(!leaderAcks)] {
				t.Errorf("%v (leader acks %v): %d, want %d", c, leaderAcks, got, want[c.Action(!leaderAcks)])
			}
		}
	}
	for class, o := range map[Class]outcome{MaybeAppended: outMaybe, NotAppended: outNotApp, NotAppendedFatal: outFatal, Appended: outAppended} {
		if got := classify(Response{Code: kafkaerr.Transport, Class: class}, false); got != o {
			t.Errorf("no answer, class %v: %d, want %d", class, got, o)
		}
	}
	// A broker's -1 is UNKNOWN_SERVER_ERROR, not a lost connection: its
	// class is not read.
	if got := classify(Response{Code: kafkaerr.UnknownServerError, Class: NotAppended}, false); got != outMaybe {
		t.Errorf("UNKNOWN_SERVER_ERROR: %d, want maybe", got)
	}
}
