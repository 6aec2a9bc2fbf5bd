package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/kafkatest"
)

// TestServeProduceStop builds the command, runs it as a child, produces to
// the addresses on its first line with rollsafe's producer, reads them
// back, sends SIGTERM and checks that every broker JVM is gone.
func TestServeProduceStop(t *testing.T) {
	kafkatest.Require(t)
	bin := filepath.Join(t.TempDir(), "kafkacluster")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-brokers", "3", "-topic", "events:6")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var first string
	select {
	case first = <-lines:
	case <-time.After(3 * time.Minute):
		t.Fatalf("no bootstrap line after 3m; stderr:\n%s", stderr.String())
	}
	addrs := strings.Split(first, ",")
	if len(addrs) != 3 {
		t.Fatalf("first line %q: want 3 addresses; stderr:\n%s", first, stderr.String())
	}
	jvms := children(t, cmd.Process.Pid)
	if len(jvms) != 3 {
		t.Fatalf("%d child JVMs, want 3: %v", len(jvms), jvms)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := client.NewProducer(client.Brokers(addrs...))
	if err != nil {
		t.Fatal(err)
	}
	const n = 1000
	var recs []*client.Record
	for i := range n {
		recs = append(recs, &client.Record{Topic: "events", Key: []byte(strconv.Itoa(i % 17)), Value: fmt.Appendf(nil, "r-%d", i)})
	}
	if err := p.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	log, err := readback.ReadTopic(ctx, addrs, "events")
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 6 {
		t.Errorf("records in %d partitions, want 6 (keys spread)", len(log))
	}
	var produced []readback.Produced
	for _, r := range recs {
		produced = append(produced, readback.Produced{ID: string(r.Value), Partition: r.Partition, Offset: r.Offset, Acked: true})
	}
	rep := readback.Check(log, produced, func(r readback.Record) string { return string(r.Value) })
	if !rep.OK() || rep.InLog != n {
		t.Fatalf("%v %v", rep, rep.Problems)
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v; stderr:\n%s", err, stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("still running 60s after SIGTERM")
	}
	for _, pid := range jvms {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("broker JVM %d still exists after the command exited: %v", pid, err)
		}
	}
}

// children lists the pids whose parent is pid (Linux /proc).
func children(t *testing.T, pid int) []int {
	t.Helper()
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []int
	for _, s := range stats {
		b, err := os.ReadFile(s)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may hold spaces: split after ')'.
		rest := string(b[strings.LastIndexByte(string(b), ')')+1:])
		f := strings.Fields(rest)
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			child, _ := strconv.Atoi(filepath.Base(filepath.Dir(s)))
			out = append(out, child)
		}
	}
	return out
}
