package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rollsafe/rollsafe/batching/fixture"
	"github.com/rollsafe/rollsafe/compress"
)

// The real-broker table runs each Go client's run in a fresh process (this
// test binary re-executed with goThroughputEnv set), as the Java and Python
// peers run in theirs: a run starts with an empty heap and no goroutines,
// connections or garbage left by the clients before it, and the CPU time
// it reports is its own.
const goThroughputEnv = "ROLLSAFE_THROUGHPUT_GO" // client|addr,addr|codec|size|records

var errBadGoChild = errors.New("bench: bad " + goThroughputEnv)

// goThroughputSpec is what a child run needs.
type goThroughputSpec struct {
	client string
	addrs  []string
	cell   throughputCell
}

func (s goThroughputSpec) String() string {
	return strings.Join([]string{s.client, strings.Join(s.addrs, ","), s.cell.codec.String(),
		strconv.Itoa(s.cell.size), strconv.Itoa(s.cell.count)}, "|")
}

func parseGoThroughputSpec(v string) (goThroughputSpec, error) {
	f := strings.Split(v, "|")
	if len(f) != 5 {
		return goThroughputSpec{}, fmt.Errorf("%w: %q", errBadGoChild, v)
	}
	codec, err := compress.ParseCodec(f[2])
	if err != nil {
		return goThroughputSpec{}, fmt.Errorf("%w: %q: %w", errBadGoChild, v, err)
	}
	size, err1 := strconv.Atoi(f[3])
	count, err2 := strconv.Atoi(f[4])
	if err1 != nil || err2 != nil || (size != fixture.Small && size != fixture.Large) || count < 1 || f[1] == "" {
		return goThroughputSpec{}, fmt.Errorf("%w: %q", errBadGoChild, v)
	}
	return goThroughputSpec{client: f[0], addrs: strings.Split(f[1], ","),
		cell: throughputCell{codec: codec, size: size, count: count}}, nil
}

// serveGoThroughput is the child: one run, its figures on stdout as
// "gobench <elapsed ns> <cpu ns> <sys ns> <batches> <requests>".
func serveGoThroughput(v string) error {
	spec, err := parseGoThroughputSpec(v)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	run, err := runGoThroughput(ctx, spec.addrs, spec.client, spec.cell)
	if err != nil {
		return err
	}
	fmt.Printf("gobench %d %d %d %d %d\n", run.elapsed, run.cpu, run.sys, run.batches, run.requests)
	return nil
}

// runGoChildThroughput runs one Go client's run in a child process.
func runGoChildThroughput(ctx context.Context, addrs []string, name string, cell throughputCell) (throughputRun, error) {
	spec := goThroughputSpec{client: name, addrs: addrs, cell: cell}
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run", "^$")
	cmd.Env = append(os.Environ(), goThroughputEnv+"="+spec.String())
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return throughputRun{}, fmt.Errorf("%s: %w\n%s%s", name, err, out, stderr.String())
	}
	for line := range strings.Lines(string(out)) {
		var elapsed, cpu, sys, batches, requests int64
		if n, _ := fmt.Sscanf(line, "gobench %d %d %d %d %d", &elapsed, &cpu, &sys, &batches, &requests); n == 5 {
			return throughputRun{elapsed: time.Duration(elapsed), cpu: time.Duration(cpu), sys: time.Duration(sys),
				batches: batches, requests: requests}, nil
		}
	}
	return throughputRun{}, fmt.Errorf("%s: no gobench line in its output:\n%s%s", name, out, stderr.String())
}
