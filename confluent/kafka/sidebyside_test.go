package kafka_test

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/sim"
	"github.com/rollsafe/rollsafe/sim/scenario"
)

// seedRun is one producer process fed lines while the seed scenario plays.
type seedRun struct {
	fed            []string
	stdout, stderr string
	exit           error
	outOfOrder     int // OUT_OF_ORDER_SEQUENCE_NUMBER answers the sim gave
}

// playSeedAgainst starts a fresh 3-broker sim with topic t (1 partition),
// starts the producer command on it, feeds it lines for a second, plays
// the seed scenario (partition 0's leader goes down, comes back, takes its
// leadership back and answers the next produce OUT_OF_ORDER_SEQUENCE_NUMBER)
// while feeding on, feeds one more second, closes its input and waits.
func playSeedAgainst(t *testing.T, command func(bootstrap string) *exec.Cmd) (seedRun, *sim.Cluster) {
	t.Helper()
	c := newCluster(t, 1, sim.FollowerLag(3*time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := command(strings.Join(c.Addrs(), ","))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	stop := make(chan struct{})
	fedCh := make(chan []string)
	go func() {
		var fed []string
		defer func() { fedCh <- fed }()
		for n := 0; ; n++ {
			select {
			case <-stop:
				return
			default:
			}
			line := "line-" + strconv.Itoa(n)
			if _, err := io.WriteString(in, line+"\n"); err != nil {
				return // the producer exited
			}
			fed = append(fed, line)
			if n%20 == 0 {
				time.Sleep(time.Millisecond)
			}
		}
	}()
	time.Sleep(time.Second)
	sched := scenario.Seed(scenario.SeedConfig{Topic: "t", Partition: 0, Down: 50 * time.Millisecond, Up: 150 * time.Millisecond, OutOfOrderOnReturn: true})
	pl := scenario.NewPlayer(c, sched)
	require.NoError(t, pl.Run(ctx), "schedule\n%s", sched)
	time.Sleep(time.Second)
	close(stop)
	r := seedRun{fed: <-fedCh}
	_ = in.Close()
	r.exit = cmd.Wait()
	r.stdout, r.stderr = stdout.String(), stderr.String()
	for _, a := range pl.Applied() {
		require.Nil(t, a.Skipped, "seed step did not happen: %s\n%s", a, sched)
	}
	for _, pr := range c.Recorder().Produces() {
		if pr.ErrorCode == codeOutOfOrderSequence {
			r.outOfOrder++
		}
	}
	return r, c
}

// TestSeedSideBySide plays the seed (confluent-kafka-go#830) twice on
// identical clusters: against kcat, which is librdkafka, producing stdin
// lines with enable.idempotence=true; and against the testdata "lines"
// program, the same job written for confluent-kafka-go and compiled with
// only its import line changed. librdkafka raises "Fatal error … sequence
// desynchronization" and stops; the confluent-kafka-go program on rollsafe
// delivers every line, each in the log exactly once. kcat must be installed
// (CI installs it): without it the test fails.
func TestSeedSideBySide(t *testing.T) {
	kcat, err := exec.LookPath("kcat")
	require.NoError(t, err, "kcat (librdkafka) is required: apt-get install kcat")
	dir := buildPrograms(t)

	t.Run("librdkafka", func(t *testing.T) {
		r, _ := playSeedAgainst(t, func(bootstrap string) *exec.Cmd {
			return exec.Command(kcat, "-P", "-b", bootstrap, "-t", "t", "-p", "0",
				"-X", "enable.idempotence=true", "-X", "acks=all", "-X", "linger.ms=5")
		})
		require.NotZero(t, r.outOfOrder, "the sim never answered OUT_OF_ORDER_SEQUENCE_NUMBER")
		require.Error(t, r.exit, "kcat survived the seed\n%s", r.stderr)
		fatal := regexp.MustCompile(`Fatal error: Broker: Broker received an out of order sequence number: .*`).FindString(r.stderr)
		require.NotEmpty(t, fatal, "kcat's stderr:\n%s", r.stderr)
		t.Logf("kcat fed %d lines, exited %v:\n%s", len(r.fed), r.exit, fatal)
	})

	t.Run("rollsafe", func(t *testing.T) {
		r, c := playSeedAgainst(t, func(bootstrap string) *exec.Cmd {
			return exec.Command(filepath.Join(dir, "lines"), bootstrap, "t", "0")
		})
		require.NotZero(t, r.outOfOrder, "the sim never answered OUT_OF_ORDER_SEQUENCE_NUMBER")
		require.NoError(t, r.exit, "stderr:\n%s", r.stderr)
		require.NotContains(t, r.stderr, "ERROR")
		got := map[string]report{}
		for _, l := range strings.Split(r.stdout, "\n") {
			m := deliveredLine.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			part, _ := strconv.Atoi(m[3])
			off, _ := strconv.ParseInt(m[4], 10, 64)
			got[m[1]] = report{partition: int32(part), offset: off, acked: true}
		}
		verify(t, c.Addrs(), "t", r.fed, got, true)
		t.Logf("lines fed %d lines: all delivered, each once in the log; OUT_OF_ORDER answers: %d", len(r.fed), r.outOfOrder)
	})
}
