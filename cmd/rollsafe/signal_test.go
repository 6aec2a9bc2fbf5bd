package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/sim"
)

// mainArgsEnv makes the test binary run main with these arguments
// (separated by \x1f), so that tests can run the real command, signals
// and all, as a subprocess.
const mainArgsEnv = "ROLLSAFE_TEST_MAIN_ARGS"

func TestMain(m *testing.M) {
	if args, ok := os.LookupEnv(mainArgsEnv); ok {
		os.Args = append([]string{"rollsafe"}, strings.Split(args, "\x1f")...)
		main()
		return
	}
	os.Exit(m.Run())
}

// startProduce runs `rollsafe produce args...` as a subprocess with an
// open stdin pipe.
func startProduce(t *testing.T, args ...string) (*exec.Cmd, io.WriteCloser, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd, stdin := startProduceTo(t, &stdout, &stderr, args...)
	return cmd, stdin, &stdout, &stderr
}

// startProduceTo is startProduce writing to stdout and stderr.
func startProduceTo(t *testing.T, stdout, stderr io.Writer, args ...string) (*exec.Cmd, io.WriteCloser) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), mainArgsEnv+"="+strings.Join(append([]string{"produce"}, args...), "\x1f"))
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = stdin.Close()
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return cmd, stdin
}

// waitExit waits (at most 30s) for cmd and returns its exit code.
func waitExit(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		return cmd.ProcessState.ExitCode()
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatal("rollsafe produce did not stop within 30s of the signal")
		return -1
	}
}

func lastSummary(t *testing.T, stdout string) produceSummary {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var sum produceSummary
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &sum), "stdout %q", stdout)
	return sum
}

// waitInLog waits until topic holds n records.
func waitInLog(t *testing.T, c *sim.Cluster, topic string, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		log, err := readback.ReadTopic(ctx, c.Addrs(), topic)
		if err != nil {
			return false
		}
		got := 0
		for _, recs := range log {
			got += len(recs)
		}
		return got >= n
	}, 30*time.Second, 20*time.Millisecond)
}

// SIGINT with stdin still open stops the command: it stops reading, its
// records are acknowledged, it prints the summary and exits 1 (the input
// was not read to its end). Costs about 1 s (a subprocess).
func TestProduceStopsOnSIGINTWithStdinOpen(t *testing.T) {
	c, err := sim.NewCluster(sim.Brokers(1), sim.Topic("events", 1, 1))
	require.NoError(t, err)
	defer c.Close()
	cmd, stdin, stdout, stderr := startProduce(t, "-brokers", c.Addrs()[0], "-topic", "events", "-linger", "1ms")
	w := bufio.NewWriter(stdin)
	for i := 0; i < 100; i++ {
		fmt.Fprintf(w, "line-%d\n", i)
	}
	require.NoError(t, w.Flush())
	waitInLog(t, c, "events", 100)
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	code := waitExit(t, cmd)
	require.Equal(t, 1, code, "stderr: %s", stderr.String())
	sum := lastSummary(t, stdout.String())
	require.True(t, sum.Interrupted)
	require.EqualValues(t, 100, sum.Read)
	require.EqualValues(t, 100, sum.Acked)
	require.Contains(t, stderr.String(), "interrupted")
}

// SIGTERM while the broker stalls: the records buffered get -stop-timeout,
// then fail; the summary counts them and the exit is non-zero.
func TestProduceStopsOnSIGTERMWithRecordsBuffered(t *testing.T) {
	c, err := sim.NewCluster(sim.Brokers(1), sim.Topic("events", 1, 1))
	require.NoError(t, err)
	defer c.Close()
	cmd, stdin, stdout, stderr := startProduce(t, "-brokers", c.Addrs()[0], "-topic", "events", "-linger", "1ms", "-stop-timeout", "300ms")
	_, err = io.WriteString(stdin, "first\n")
	require.NoError(t, err)
	waitInLog(t, c, "events", 1)
	require.NoError(t, c.DelayResponses(0, time.Minute))
	for i := 0; i < 20; i++ {
		_, err = fmt.Fprintf(stdin, "stalled-%d\n", i)
		require.NoError(t, err)
	}
	time.Sleep(200 * time.Millisecond) // let it read them (unread ones count too)
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	code := waitExit(t, cmd)
	require.Equal(t, 1, code, "stderr: %s", stderr.String())
	sum := lastSummary(t, stdout.String())
	require.True(t, sum.Interrupted)
	require.EqualValues(t, 1, sum.Acked)
	require.Equal(t, sum.Read-1, sum.Failed, "every stalled record read is counted failed")
	if sum.Read > 1 {
		require.Contains(t, stderr.String(), "failed stalled-")
	}
	require.NoError(t, c.DelayResponses(0, 0))
}

// An oversized line is a failure (counted, non-zero exit) and does not stop
// the lines after it; a failed record's long value is shortened, saying
// how much was cut.
func TestProduceOversizedLineAndLongFailure(t *testing.T) {
	c, err := sim.NewCluster(sim.Brokers(1), sim.Topic("events", 1, 1))
	require.NoError(t, err)
	defer c.Close()
	in := "a\n" + strings.Repeat("x", 2<<20) + "\nb\nc"
	var out, errOut bytes.Buffer
	code := runProduce(context.Background(), []string{"-brokers", c.Addrs()[0], "-topic", "events", "-max-record-bytes", "1000"},
		strings.NewReader(in), &out, &errOut)
	require.Equal(t, 1, code, errOut.String())
	sum := lastSummary(t, out.String())
	require.EqualValues(t, 4, sum.Read)
	require.EqualValues(t, 3, sum.Acked)
	require.EqualValues(t, 1, sum.Failed)
	require.EqualValues(t, 1, sum.TooLarge)
	require.Contains(t, errOut.String(), fmt.Sprintf("failed <line 2 of %d bytes>: longer than -max-record-bytes 1000", 2<<20))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	log, err := readback.ReadTopic(ctx, c.Addrs(), "events")
	require.NoError(t, err)
	var got []string
	for _, r := range log[0] {
		got = append(got, string(r.Value))
	}
	require.Equal(t, []string{"a", "b", "c"}, got)

	out.Reset()
	errOut.Reset()
	long := strings.Repeat("y", 5000)
	code = runProduce(context.Background(), []string{"-brokers", c.Addrs()[0], "-topic", "events", "-partition", "9"},
		strings.NewReader(long+"\n"), &out, &errOut)
	require.Equal(t, 1, code)
	require.Contains(t, errOut.String(), fmt.Sprintf("failed %s... (%d more bytes cut): ", long[:failedValueMax], 5000-failedValueMax))
	require.Equal(t, 1, strings.Count(errOut.String(), "\n"), "one line per failure: %q", errOut.String())
}

// -h and help exit 0 and print every command's flags; the synopsis in
// docs/cli.md lists every one of them.
func TestHelpListsEveryFlag(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"help"}, {"--help"}} {
		var out, errb strings.Builder
		require.Equal(t, 0, run(context.Background(), args, &out, &errb), args)
		require.Contains(t, out.String(), "rollsafe produce:")
		require.Contains(t, out.String(), "-stop-timeout")
		require.Contains(t, out.String(), "-fault-at")
		require.Contains(t, out.String(), "-replication")
	}
	for _, name := range commandOrder {
		var out, errb strings.Builder
		require.Equal(t, 0, run(context.Background(), []string{name, "-h"}, &out, &errb), name)
		require.Equal(t, 0, run(context.Background(), []string{"help", name}, &out, &errb), name)
	}
	var out, errb strings.Builder
	require.Equal(t, 0, run(context.Background(), []string{"help"}, &out, &errb))
	cli, err := os.ReadFile("../../docs/cli.md")
	require.NoError(t, err)
	synopsis := string(cli)
	for _, l := range strings.Split(out.String(), "\n") {
		f := strings.Fields(l)
		if len(f) == 0 || !strings.HasPrefix(l, "  -") {
			continue
		}
		require.True(t, strings.Contains(synopsis, f[0]+" ") || strings.Contains(synopsis, f[0]+"]"), "docs/cli.md's synopsis lists flag %s", f[0])
	}
	require.Contains(t, synopsis, "kcat")
}

// Bad broker lists are usage errors naming the problem, before anything
// is read.
func TestProduceBadBrokerList(t *testing.T) {
	for _, b := range []string{",", "localhost", "kafka:notaport", "127.0.0.1:9092,"} {
		var out, errOut bytes.Buffer
		require.Equal(t, 2, runProduce(context.Background(), []string{"-brokers", b, "-topic", "x"}, strings.NewReader("a\n"), &out, &errOut), b)
		require.Contains(t, errOut.String(), "Brokers:", b)
		require.Empty(t, out.String(), b)
	}
}

// A second SIGINT while records wait on a stalled broker exits 130 at
// once, first printing how many lines were read, acknowledged, failed and
// abandoned; the counts add up.
func TestProduceSecondSIGINTReportsAbandoned(t *testing.T) {
	c, err := sim.NewCluster(sim.Brokers(1), sim.Topic("events", 1, 1))
	require.NoError(t, err)
	defer c.Close()
	stderr := &lockedBuffer{} // read while the process runs
	cmd, stdin := startProduceTo(t, io.Discard, stderr, "-brokers", c.Addrs()[0], "-topic", "events", "-linger", "1ms", "-stop-timeout", "1m")
	_, err = io.WriteString(stdin, "first\n")
	require.NoError(t, err)
	waitInLog(t, c, "events", 1)
	require.NoError(t, c.DelayResponses(0, time.Minute))
	defer func() { require.NoError(t, c.DelayResponses(0, 0)) }()
	for i := 0; i < 20; i++ {
		_, err = fmt.Fprintf(stdin, "stalled-%d\n", i)
		require.NoError(t, err)
	}
	time.Sleep(300 * time.Millisecond) // let it read them
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	require.Eventually(t, func() bool { return strings.Contains(stderr.String(), "interrupted") }, 10*time.Second, 10*time.Millisecond)
	start := time.Now()
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	code := waitExit(t, cmd)
	require.Less(t, time.Since(start), 5*time.Second, "at once, not after -stop-timeout")
	require.Equal(t, 130, code, "stderr: %s", stderr.String())
	var read, acked, failed, abandoned int
	var found bool
	for _, l := range strings.Split(stderr.String(), "\n") {
		if _, err := fmt.Sscanf(l, "rollsafe produce: second signal: exiting at once: %d lines read, %d acknowledged, %d failed, %d abandoned", &read, &acked, &failed, &abandoned); err == nil {
			found = true
		}
	}
	require.True(t, found, "stderr: %s", stderr.String())
	require.Equal(t, 21, read)
	require.Equal(t, 1, acked)
	require.Equal(t, read, acked+failed+abandoned)
	require.Positive(t, abandoned)
}
