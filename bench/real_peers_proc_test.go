//go:build linux

package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// procSession is a peer in a child process speaking the line protocol of
// bench/peerprogs (python/peer.py, java Peer): "ID PARTITION" lines in,
// "ack ID P OFFSET" / "err ID P REASON" / "fatal REASON" / "log LINE" /
// "done N" lines out; stderr lines go to the log.
type procSession struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	w      *bufio.Writer
	tl     *tally
	done   chan struct{} // stdout and stderr read to the end
	exited chan struct{}
	err    error // of Wait
	// lines, if set, sees each stdout line first; true means it took it.
	lines func(line string) bool
}

// startProc starts name args... with the scenario arguments appended.
func startProc(name string, args []string, tl *tally) (*procSession, error) {
	return startProcLines(name, args, tl, nil)
}

// startProcLines is startProc with lines seeing each stdout line first
// (the txn mode's lines).
func startProcLines(name string, args []string, tl *tally, lines func(string) bool) (*procSession, error) {
	cmd := exec.Command(name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	s := &procSession{cmd: cmd, stdin: stdin, w: bufio.NewWriterSize(stdin, 64<<10), tl: tl,
		done: make(chan struct{}), exited: make(chan struct{}), lines: lines}
	var wg sync.WaitGroup
	wg.Go(func() { s.readOut(stdout) })
	wg.Go(func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			tl.log("stderr: " + sc.Text())
		}
	})
	go func() { wg.Wait(); close(s.done); s.err = cmd.Wait(); close(s.exited) }()
	return s, nil
}

func (s *procSession) readOut(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if s.lines != nil && s.lines(sc.Text()) {
			continue
		}
		kind, rest, _ := strings.Cut(sc.Text(), " ")
		switch kind {
		case "ack":
			f := strings.Fields(rest)
			if len(f) == 3 {
				p, _ := strconv.Atoi(f[1])
				off, _ := strconv.ParseInt(f[2], 10, 64)
				s.tl.ack(f[0], int32(p), off)
				continue
			}
		case "err":
			f := strings.SplitN(rest, " ", 3)
			if len(f) == 3 {
				p, _ := strconv.Atoi(f[1])
				s.tl.fail(f[0], int32(p), f[2])
				continue
			}
		case "fatal":
			s.tl.fatal(rest)
			continue
		case "log", "version", "done":
			s.tl.log(sc.Text())
			continue
		}
		s.tl.log("unparsed: " + sc.Text())
	}
}

func (s *procSession) send(recs []peerRec) {
	for _, r := range recs {
		fmt.Fprintf(s.w, "%s %d\n", r.id, r.partition)
	}
	if err := s.w.Flush(); err != nil {
		s.tl.log("stdin: " + err.Error())
	}
}

// finish closes stdin (the peer flushes and exits) and waits for it; when
// ctx ends first the process group is killed.
func (s *procSession) finish(ctx context.Context) error {
	_ = s.w.Flush()
	_ = s.stdin.Close()
	select {
	case <-s.exited:
		return s.err
	case <-ctx.Done():
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.exited
		return fmt.Errorf("peer did not exit: %w", ctx.Err())
	}
}

// librdkafkaProps are the scenario's librdkafka properties.
func librdkafkaProps(o peerOpts) []string {
	if o.requestTimeout > 0 {
		return []string{fmt.Sprintf("request.timeout.ms=%d", o.requestTimeout.Milliseconds())}
	}
	return nil
}

func startPython(debian bool) func(context.Context, []string, string, peerOpts, *tally) (peerSession, error) {
	return func(_ context.Context, addrs []string, topic string, o peerOpts, tl *tally) (peerSession, error) {
		py, args, err := pythonCmd(debian)
		if err != nil {
			return nil, err
		}
		args = append(args, "scenario", strings.Join(addrs, ","), topic)
		return startProc(py, append(args, librdkafkaProps(o)...), tl)
	}
}

func startJava(_ context.Context, addrs []string, topic string, o peerOpts, tl *tally) (peerSession, error) {
	java, args, err := javaCmd()
	if err != nil {
		return nil, err
	}
	args = append(args, "scenario", strings.Join(addrs, ","), topic)
	if o.requestTimeout > 0 {
		args = append(args, fmt.Sprintf("request.timeout.ms=%d", o.requestTimeout.Milliseconds()))
	}
	return startProc(java, args, tl)
}

// --- kcat (librdkafka 2.0.2 from Debian) ---

// kcatSession runs one `kcat -P -p N` per partition: kcat reads values
// from stdin and reports each delivery, success or failure, in order on
// stderr (verbosity 3), without naming the record, so the records of one
// process are matched to its reports by position.
type kcatSession struct {
	tl    *tally
	procs []*kcatProc
}

type kcatProc struct {
	part   int32
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	w      *bufio.Writer
	mu     sync.Mutex
	queue  []string // ids sent, awaiting their report
	exited chan struct{}
	err    error
}

var (
	kcatDelivered = regexp.MustCompile(`Message delivered to partition (-?\d+) \(offset (-?\d+)\)`)
	kcatFailed    = regexp.MustCompile(`Delivery failed for message: (.*)`)
)

func startKcat(parts int32) func(context.Context, []string, string, peerOpts, *tally) (peerSession, error) {
	return func(_ context.Context, addrs []string, topic string, o peerOpts, tl *tally) (peerSession, error) {
		kcat, err := kcatCmd()
		if err != nil {
			return nil, err
		}
		s := &kcatSession{tl: tl}
		for p := range parts {
			args := []string{"-P", "-b", strings.Join(addrs, ","), "-t", topic, "-p", strconv.Itoa(int(p)),
				"-v", "-v", "-X", "enable.idempotence=true", "-X", "acks=all", "-X", "linger.ms=5"}
			for _, kv := range librdkafkaProps(o) {
				args = append(args, "-X", kv)
			}
			kp, err := s.startOne(kcat, args, p)
			if err != nil {
				_ = s.finish(context.Background())
				return nil, err
			}
			s.procs = append(s.procs, kp)
		}
		return s, nil
	}
}

func (s *kcatSession) startOne(kcat string, args []string, p int32) (*kcatProc, error) {
	cmd := exec.Command(kcat, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start kcat: %w", err)
	}
	kp := &kcatProc{part: p, cmd: cmd, stdin: stdin, w: bufio.NewWriterSize(stdin, 64<<10), exited: make(chan struct{})}
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if m := kcatDelivered.FindStringSubmatch(line); m != nil {
				if id, ok := kp.pop(); ok {
					part, _ := strconv.Atoi(m[1])
					off, _ := strconv.ParseInt(m[2], 10, 64)
					s.tl.ack(id, int32(part), off)
				}
				continue
			}
			if m := kcatFailed.FindStringSubmatch(line); m != nil {
				if id, ok := kp.pop(); ok {
					s.tl.fail(id, p, m[1])
				}
				continue
			}
			s.tl.log(fmt.Sprintf("kcat -p %d: %s", p, line))
		}
	}()
	go func() { <-read; kp.err = cmd.Wait(); close(kp.exited) }()
	return kp, nil
}

func (kp *kcatProc) pop() (string, bool) {
	kp.mu.Lock()
	defer kp.mu.Unlock()
	if len(kp.queue) == 0 {
		return "", false
	}
	id := kp.queue[0]
	kp.queue = kp.queue[1:]
	return id, true
}

func (s *kcatSession) send(recs []peerRec) {
	for _, r := range recs {
		kp := s.procs[r.partition]
		kp.mu.Lock()
		kp.queue = append(kp.queue, r.id)
		kp.mu.Unlock()
		kp.w.Write(peerValue(r.id))
		kp.w.WriteByte('\n')
	}
	for _, kp := range s.procs {
		if err := kp.w.Flush(); err != nil {
			s.tl.log(fmt.Sprintf("kcat -p %d stdin: %v", kp.part, err))
		}
	}
}

func (s *kcatSession) finish(ctx context.Context) error {
	var errs []error
	for _, kp := range s.procs {
		_ = kp.w.Flush()
		_ = kp.stdin.Close()
	}
	for _, kp := range s.procs {
		select {
		case <-kp.exited:
			if kp.err != nil {
				errs = append(errs, fmt.Errorf("kcat -p %d: %w", kp.part, kp.err))
			}
		case <-ctx.Done():
			_ = syscall.Kill(-kp.cmd.Process.Pid, syscall.SIGKILL)
			<-kp.exited
			errs = append(errs, fmt.Errorf("kcat -p %d did not exit: %w", kp.part, ctx.Err()))
		}
	}
	return errors.Join(errs...)
}
