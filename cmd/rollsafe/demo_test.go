package main

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/compress"
	"github.com/rollsafe/rollsafe/kafkatest"
	"github.com/rollsafe/rollsafe/sim/scenario"
)

// TestDemoSmall runs the demo end to end on a small volume: the seed
// scenario plays in full while the records are produced (its timing
// follows the records, not the clock), every record is read back, and the
// report says nothing was lost, duplicated or reordered. Output that is
// not a terminal gets plain progress lines of at most 80 columns, faults
// named, the fault cleared once it ended, and the recovery words
// explained. Costs about 1 s.
func TestDemoSmall(t *testing.T) {
	var out, errb strings.Builder
	code := runDemo(context.Background(), []string{"-records", "20000", "-size", "200"}, &out, &errb)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	report := out.String()
	require.Contains(t, report, "lost 0   duplicates 0   reordered 0")
	require.Contains(t, report, "acked     20000   failed 0")
	require.Contains(t, report, "played 5 of 5 steps")
	require.Contains(t, report, "OUT_OF_ORDER_SEQUENCE_NUMBER")
	require.NotContains(t, report, "code 45")
	require.NotContains(t, report, "\r", "no in-place updates when stdout is not a terminal")
	require.Contains(t, report, "epoch bump: ")
	require.Contains(t, report, "tail read: ")
	var progress []string
	for _, l := range strings.Split(report, "\n") {
		if strings.HasPrefix(l, "acked ") && strings.Contains(l, "fault:") {
			require.LessOrEqual(t, utf8.RuneCountInString(l), 80, "line %q", l)
			progress = append(progress, l)
		}
	}
	require.NotEmpty(t, progress)
	require.Contains(t, progress[len(progress)-1], "fault: none (step 5/5 done)", "the fault is cleared once it ended")
	// The returning leader's OUT_OF_ORDER answer desynchronised a partition:
	// resolved from the log, never fatal.
	require.Regexp(t, `tail reads [1-9]`, report)
}

// A volume too small for the old fixed 1 s start still plays the whole
// scenario: faults are placed by records produced.
func TestDemoScenarioFollowsProgress(t *testing.T) {
	var out, errb strings.Builder
	code := runDemo(context.Background(), []string{"-records", "3000", "-size", "100", "-scenario", "rolling-restart"}, &out, &errb)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	require.Contains(t, out.String(), "played 12 of 12 steps")
}

// A scenario that does not play in full fails the demo, whatever the
// read-back says.
func TestDemoFailsWhenTheScenarioDidNotPlay(t *testing.T) {
	sched := scenario.Schedule{Name: "broken", Steps: []scenario.Step{{Kind: scenario.StartBroker, Broker: scenario.Any}}}
	var out strings.Builder
	rep, err := demo(context.Background(), &out, demoConfig{records: 2000, size: 100, codec: compress.None, partitions: 2, sched: sched, faultAt: 0.1})
	require.NoError(t, err)
	require.Zero(t, rep.lost)
	require.Error(t, rep.notPlayed)
	require.False(t, rep.passed())
	printDemoReport(&out, rep)
	require.Contains(t, out.String(), "FAILED    the scenario did not play in full")
}

// unclean-loss loses acknowledged records by design: the demo says they
// were expected and detected, with the offsets the producer reported, and
// passes because every lost record was reported.
func TestDemoUncleanLossIsExpectedAndDetected(t *testing.T) {
	var out, errb strings.Builder
	code := runDemo(context.Background(), []string{"-records", "8000", "-size", "200", "-scenario", "unclean-loss"}, &out, &errb)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	require.Regexp(t, `expected  [1-9][0-9]* records lost by the unclean election — detected and reported by the producer: offsets events/0 [0-9]+\.\.[0-9]+`, out.String())
	require.Contains(t, out.String(), "PASSED")
}

func TestProgressLineFits80Columns(t *testing.T) {
	long := strings.Repeat("stopped broker 2 (leader of events/0), clean ", 5)
	l := progressLine(123456789, 1000000000, 3*time.Second, long)
	require.LessOrEqual(t, utf8.RuneCountInString(l), 79)
	require.True(t, strings.HasPrefix(l, "acked 123456789/1000000000 "))
}

// TestDemoKafka runs `rollsafe demo -kafka` on a real local 3-broker
// cluster (kafkatest): the seed's roll on real brokers plays in full — the
// leader of events/0 stopped by a controlled shutdown under load,
// restarted, handed its leadership back by a preferred-leader election —
// and every record is read back once, in order, at its offset. Skipped
// without Java and the Kafka jars (kafkatest/fetch.sh), except under
// CI=true where it fails. Costs one cluster launch plus the roll: about a
// minute.
func TestDemoKafka(t *testing.T) {
	kafkatest.Require(t)
	var out, errb strings.Builder
	code := runDemo(context.Background(), []string{"-kafka", "-records", "30000", "-size", "200", "-partitions", "3"}, &out, &errb)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	report := out.String()
	t.Log(report)
	require.Contains(t, report, "on real Apache Kafka "+kafkatest.KafkaVersion)
	require.Regexp(t, `played: step 1/3 controlled shutdown of broker \d \(leader of events/0\) in .*: broker (\d) stopped, events/0 led by broker \d`, report)
	require.Regexp(t, `played: step 2/3 restart broker \d in .*: broker \d back in the ISR`, report)
	require.Regexp(t, `played: step 3/3 preferred-leader election: broker (\d) takes events/0 back in .*: events/0 led by broker \d again`, report)
	require.Contains(t, report, "played 3 of 3 steps")
	require.Contains(t, report, "acked     30000   failed 0")
	require.Contains(t, report, "read back 30000 records: lost 0   duplicates 0   reordered 0\n")
	require.Contains(t, report, "PASSED")
}

// Without Java or the broker jars, demo -kafka fails at once with one line
// saying how to get them.
func TestDemoKafkaWithoutRuntime(t *testing.T) {
	t.Setenv("ROLLSAFE_KAFKA_LIB", t.TempDir())
	var out, errb strings.Builder
	code := runDemo(context.Background(), []string{"-kafka", "-records", "1000"}, &out, &errb)
	require.Equal(t, 1, code)
	require.Empty(t, out.String())
	msg := errb.String()
	require.Equal(t, 1, strings.Count(msg, "\n"), "one line: %q", msg)
	require.True(t, strings.HasPrefix(msg, "rollsafe demo: -kafka needs Java 17+ and Apache Kafka "), msg)
	require.Contains(t, msg, "kafkatest/fetch.sh")
	require.Contains(t, msg, "not found")
}

func TestDemoKafkaScenarios(t *testing.T) {
	var out, errb strings.Builder
	code := runDemo(context.Background(), []string{"-kafka", "-scenario", "unclean-loss"}, &out, &errb)
	require.Equal(t, 2, code)
	require.Contains(t, errb.String(), `-kafka plays -scenario seed or none, not "unclean-loss"`)
}

// -kafka-version names a release kafkatest runs, and only with -kafka;
// a release whose jars are missing is named in the one-line error.
func TestDemoKafkaVersionFlag(t *testing.T) {
	for _, args := range [][]string{
		{"-kafka", "-kafka-version", "2.7"},
		{"-kafka-version", "2.8.1"},
	} {
		var out, errb strings.Builder
		code := runDemo(context.Background(), args, &out, &errb)
		require.Equal(t, 2, code, "%v: %s", args, errb.String())
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	var out, errb strings.Builder
	code := runDemo(context.Background(), []string{"-kafka", "-kafka-version", "2.8", "-records", "1000"}, &out, &errb)
	require.Equal(t, 1, code)
	require.True(t, strings.HasPrefix(errb.String(), "rollsafe demo: -kafka needs Java 17+ and Apache Kafka 2.8.1's jars: "), errb.String())
	require.Contains(t, errb.String(), "kafka_2.13-2.8.1.jar not found")
}

func TestKafkaMarks(t *testing.T) {
	marks, waitAt := kafkaMarks(3, 1000, 0.1)
	require.Equal(t, []int{100, 350, 600}, marks)
	require.Equal(t, []int{350, 600, 950}, waitAt)
	marks, waitAt = kafkaMarks(3, 10, 0.8)
	require.Equal(t, []int{8, 8, 9}, marks)
	require.Equal(t, []int{8, 9, 9}, waitAt)
	marks, waitAt = kafkaMarks(0, 10, 0.1)
	require.Empty(t, marks)
	require.Empty(t, waitAt)
}
