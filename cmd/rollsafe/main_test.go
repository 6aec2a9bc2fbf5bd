package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

func TestRunSimServesUntilCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	var stderr strings.Builder
	go func() {
		done <- run(ctx, []string{"sim", "-brokers", "2", "-topic", "a:3", "-topic", "b:1", "-replication", "2"}, pw, &stderr)
		_ = pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	addrs := strings.Split(strings.TrimSpace(line), ",")
	if len(addrs) != 2 {
		t.Fatalf("first line %q", line)
	}
	for _, a := range addrs {
		nc, err := net.DialTimeout("tcp", a, 5*time.Second)
		if err != nil {
			t.Fatalf("dial %s: %v", a, err)
		}
		_ = nc.Close()
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d, stderr %s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("sim did not stop")
	}
	for _, a := range addrs {
		if nc, err := net.DialTimeout("tcp", a, time.Second); err == nil {
			_ = nc.Close()
			t.Fatalf("%s still listening", a)
		}
	}
}

func TestRunUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		nil, {"bogus"}, {"demo", "-records", "0"}, {"demo", "-codec", "brotli"}, {"demo", "-scenario", "nope"}, {"produce"},
		{"sim", "-topic", "nopartitions"}, {"sim", "-topic", "a:0"}, {"sim", "extra"}, {"sim", "-nosuchflag"},
	} {
		var out, errb strings.Builder
		if code := run(context.Background(), args, &out, &errb); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
		if out.Len() != 0 {
			t.Errorf("%q wrote stdout %q", args, out.String())
		}
	}
	var out, errb strings.Builder
	if code := run(context.Background(), []string{"sim", "-brokers", "1", "-topic", "a:1", "-replication", "3"}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "replication") {
		t.Errorf("bad replication: exit %d, %q", code, errb.String())
	}
}
