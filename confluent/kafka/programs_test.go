package kafka_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/sim"
)

// The programs under testdata/programs are written for confluent-kafka-go:
// they import github.com/confluentinc/confluent-kafka-go/v2/kafka and
// nothing of rollsafe. buildPrograms changes exactly that import line (in a
// go build overlay; the files on disk stay as they are) and compiles them
// against this package, proving that a confluent-kafka-go producer program
// moves to rollsafe with the import line alone.

const (
	confluentImport = `"github.com/confluentinc/confluent-kafka-go/v2/kafka"`
	rollsafeImport  = `"github.com/rollsafe/rollsafe/confluent/kafka"`
)

// programNames are the programs built: TestPrograms runs producerPrograms
// (on the sim; TestOnRealKafka on Kafka), TestOAuthProgram runs "oauth",
// TestSeedSideBySide runs "lines", TestTxnProgram runs "txn".
var programNames = []string{"async", "events", "sync", "keyed", "fatal", "channel", "oauth", "lines", "txn"}

// producerPrograms run against a plaintext cluster, with their counts.
var (
	producerPrograms = []string{"async", "events", "sync", "keyed", "fatal", "channel"}
	programCounts    = map[string]int{"async": 3000, "events": 3000, "sync": 200, "keyed": 2000, "fatal": 500, "channel": 1000}
)

var (
	buildOnce sync.Once
	builtDir  string
	buildErr  error
)

// buildPrograms compiles every program once per test binary and returns
// the directory holding the executables.
func buildPrograms(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() { builtDir, buildErr = build() })
	require.NoError(t, buildErr)
	return builtDir
}

func build() (string, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	dir, err := os.MkdirTemp("", "confluent-programs")
	if err != nil {
		return "", err
	}
	overlay := map[string]string{}
	var pkgs []string
	for _, name := range programNames {
		src, err := filepath.Abs(filepath.Join("testdata", "programs", name, "main.go"))
		if err != nil {
			return "", err
		}
		rewritten, err := rewriteImport(src)
		if err != nil {
			return "", err
		}
		dst := filepath.Join(dir, name+".go")
		if err := os.WriteFile(dst, rewritten, 0o644); err != nil {
			return "", err
		}
		overlay[src] = dst
		pkgs = append(pkgs, "./testdata/programs/"+name)
	}
	ov, _ := json.Marshal(map[string]any{"Replace": overlay})
	ovFile := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(ovFile, ov, 0o644); err != nil {
		return "", err
	}
	args := []string{"build", "-overlay", ovFile, "-o", dir + string(os.PathSeparator)}
	if raceEnabled {
		args = append(args, "-race")
	}
	cmd := exec.Command(goBin, append(args, pkgs...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", &buildError{err: err, out: string(out)}
	}
	return dir, nil
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return "go build: " + e.err.Error() + "\n" + e.out }

// rewriteImport returns the program with its one confluent-kafka-go import
// line changed, after checking that it is a confluent-kafka-go program:
// exactly one such import and no mention of rollsafe.
func rewriteImport(path string) ([]byte, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(src), "\n")
	n := 0
	for i, l := range lines {
		if strings.TrimSpace(l) == confluentImport {
			lines[i] = strings.Replace(l, confluentImport, rollsafeImport, 1)
			n++
		}
	}
	if n != 1 || strings.Contains(string(src), "rollsafe") {
		return nil, &buildError{err: os.ErrInvalid, out: path + ": want exactly one confluent-kafka-go import line and no rollsafe import"}
	}
	return []byte(strings.Join(lines, "\n")), nil
}

func TestProgramsImportConfluent(t *testing.T) {
	for _, name := range programNames {
		src, err := os.ReadFile(filepath.Join("testdata", "programs", name, "main.go"))
		require.NoError(t, err)
		require.Contains(t, string(src), "\t"+confluentImport+"\n", name)
		require.NotContains(t, string(src), "rollsafe", name)
	}
}

var deliveredLine = regexp.MustCompile(`^Delivered (\S+) to (\S+)\[(\d+)\]@(\d+)$`)

// runProgram runs a built program against brokers and returns the delivery
// reports it printed, by value.
func runProgram(t *testing.T, dir, name string, brokers []string, topic string, n int, extra ...string) (map[string]report, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append([]string{strings.Join(brokers, ","), topic, strconv.Itoa(n)}, extra...)
	cmd := exec.CommandContext(ctx, filepath.Join(dir, name), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	out := stdout.String()
	var other []string // what the program printed besides delivery reports
	for _, l := range strings.Split(out, "\n") {
		if l != "" && !strings.HasPrefix(l, "Delivered ") {
			other = append(other, l)
		}
	}
	if len(other) > 50 {
		other = other[:50]
	}
	require.NoError(t, err, "%s failed\nstdout (without delivery lines):\n%s\nstderr:\n%s", name, strings.Join(other, "\n"), stderr.String())
	got := map[string]report{}
	for _, l := range strings.Split(out, "\n") {
		m := deliveredLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		require.Equal(t, topic, m[2], l)
		part, _ := strconv.Atoi(m[3])
		off, _ := strconv.ParseInt(m[4], 10, 64)
		_, dup := got[m[1]]
		require.False(t, dup, "two reports for %s", m[1])
		got[m[1]] = report{partition: int32(part), offset: off, acked: true}
	}
	return got, out
}

// TestPrograms runs each confluent-kafka-go program, compiled with only its
// import line changed, against a 3-broker sim and reads every record back:
// each message reported delivered is in the log exactly once, at the
// reported offset, in order.
func TestPrograms(t *testing.T) {
	dir := buildPrograms(t)
	for _, name := range producerPrograms {
		t.Run(name, func(t *testing.T) {
			c := newCluster(t, 4)
			n := programCounts[name]
			got, out := runProgram(t, dir, name, c.Addrs(), "t", n)
			log := verify(t, c.Addrs(), "t", values(name, n), got, true)
			switch name {
			case "events":
				require.Contains(t, out, "Queue full ")
				t.Log(regexp.MustCompile(`Queue full \d+ times`).FindString(out))
			case "sync":
				for _, r := range got {
					require.Less(t, r.partition, int32(2), "sync names partitions 0 and 1")
				}
				checkSyncLookups(t, out, "t", 4, log)
			case "keyed":
				checkKeyed(t, log)
			case "fatal":
				checkFatal(t, out, "t", log)
			}
		})
	}
}

// checkFatal checks what the fatal program printed: the library version,
// the fatal event and GetFatalError (TestFatalError's code and text), and
// the next offset of every partition it wrote to, sorted, against the log.
func checkFatal(t *testing.T, out, topic string, log map[int32][]readback.Record) {
	t.Helper()
	require.Contains(t, out, "librdkafka version 2.15.0-rollsafe (0x20f00ff)\n")
	require.Contains(t, out, "FATAL ERROR: Fatal error: test_fatal_error: Testing fatal errors: terminating\n")
	require.Contains(t, out, "GetFatalError: Fatal error: test_fatal_error: Testing fatal errors (code 45)\n")
	require.Contains(t, out, "Logical offsets: end -2005\n")
	var want strings.Builder
	for part := range int32(len(log) + 8) {
		if recs := log[part]; len(recs) > 0 {
			fmt.Fprintf(&want, "Next %s[%d]@%d\n", topic, part, recs[len(recs)-1].Offset+1)
		}
	}
	require.NotEmpty(t, want.String())
	require.Contains(t, out, want.String())
}

// TestOAuthProgram runs the oauth program (OAUTHBEARER tokens made by the
// application on each OAuthBearerTokenRefresh, through kafka.Handle, with
// whole-second "exp" claims as confluent-kafka-go's example makes them)
// against a sim that ends each SASL session when its token expires: with
// 3 s tokens over 8 s, every message is delivered, read back once, in order.
func TestOAuthProgram(t *testing.T) {
	dir := buildPrograms(t)
	c := newCluster(t, 4, sim.SASLOAuthBearer())
	const n = 80
	got, out := runProgram(t, dir, "oauth", c.Addrs(), "t", n, "principal=orders-svc", "3", "100")
	require.Len(t, got, n, out)
	refreshes := regexp.MustCompile(`Token refreshes: (\d+)`).FindStringSubmatch(out)
	require.NotNil(t, refreshes, out)
	r, _ := strconv.Atoi(refreshes[1])
	require.GreaterOrEqual(t, r, 3, "a refresh at 80%% of each 3 s token's lifetime")
	readOAuth(t, c, values("oauth", n), got)
}

// checkKeyed checks the keyed program's records in the log: keys on their
// murmur2 partitions, headers as produced.
func checkKeyed(t *testing.T, log map[int32][]readback.Record) {
	for part, recs := range log {
		for _, r := range recs {
			require.Equal(t, client.KeyPartition(r.Key, 4), part, "key %s", r.Key)
			require.Len(t, r.Headers, 3)
			seq := strings.TrimPrefix(string(r.Value), "keyed-")
			require.Equal(t, "seq", r.Headers[0].Key)
			require.Equal(t, seq, string(r.Headers[0].Value))
			require.Equal(t, "keyed-example", string(r.Headers[1].Value))
			require.Equal(t, "empty", r.Headers[2].Key)
			require.Nil(t, r.Headers[2].Value)
			i, _ := strconv.Atoi(seq)
			require.Equal(t, "user-"+strconv.Itoa(i%7), string(r.Key))
		}
	}
}

// checkSyncLookups checks what the sync program printed from GetMetadata
// and QueryWatermarkOffsets against the log read back.
func checkSyncLookups(t *testing.T, out, topic string, parts int, log map[int32][]readback.Record) {
	t.Helper()
	require.Contains(t, out, fmt.Sprintf("Topic %s has %d partitions\n", topic, parts))
	for part := range int32(2) {
		recs := log[part]
		require.NotEmpty(t, recs)
		want := fmt.Sprintf("Watermarks %s[%d]: %d %d\n", topic, part, recs[0].Offset, recs[len(recs)-1].Offset+1)
		require.Contains(t, out, want)
	}
}
