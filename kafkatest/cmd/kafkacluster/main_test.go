package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/client/readback"
	"github.com/rollsafe/rollsafe/kafkatest"
)

// TestServeProduceStop builds the command, runs it as a child with every
// secured listener (-tls -sasl PLAIN,SCRAM-SHA-512,OAUTHBEARER), produces
// with rollsafe's producer to the plaintext addresses on its first line
// and through each secured listener as the following lines describe it
// (the CA file, the user, the token file), reads the topic back, sends
// SIGTERM and checks that every broker JVM is gone. One cluster serves
// every way in (a launch costs 20-60 s).
func TestServeProduceStop(t *testing.T) {
	kafkatest.Require(t)
	bin := filepath.Join(t.TempDir(), "kafkacluster")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// In CI the package may wait for the other packages' clusters (one at
	// a time on a machine; kafkatest/conformance holds its one about 8
	// minutes): wait up to 20 minutes, within go test's 30-minute timeout.
	cmd := exec.Command(bin, "-brokers", "3", "-topic", "events:6", "-lock-wait", "20m",
		"-tls", "-sasl", "PLAIN,SCRAM-SHA-512,OAUTHBEARER", "-user", "alice:alice-secret")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer // written by exec's copier while the test reads it
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
	// The bootstrap line, then TLS, SASL and SASL_TLS.
	const wantLines = 4
	lines := make(chan string, wantLines)
	go func() {
		sc := bufio.NewScanner(stdout)
		for i := 0; i < wantLines && sc.Scan(); i++ {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var out []string
	// The command first waits (-lock-wait, 20 minutes here) for any other
	// kafkatest cluster on the machine to close (go test runs packages in
	// parallel), then gives each broker -start-timeout (3 minutes) to serve.
	timeout := time.After(24 * time.Minute)
	for len(out) < wantLines {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("stdout ended after %q; stderr:\n%s", out, stderr.String())
			}
			out = append(out, l)
		case <-timeout:
			t.Fatalf("%d of %d lines after 24m: %q; stderr:\n%s", len(out), wantLines, out, stderr.String())
		}
	}
	first := out[0]
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
	recs := produceN(ctx, t, p, "plain", n)
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	// Every secured way in, as the listener lines describe it.
	ls := map[string]listenerLine{}
	for _, l := range out[1:] {
		ll := parseListener(t, l)
		ls[ll.name] = ll
	}
	ways := []struct {
		name, listener string
		opts           func(listenerLine) []client.Option
	}{
		{"ssl", "TLS", func(l listenerLine) []client.Option { return []client.Option{client.WithTLS(l.tlsConfig(t))} }},
		{"sasl-ssl-plain", "SASL_TLS", func(l listenerLine) []client.Option {
			return []client.Option{client.WithTLS(l.tlsConfig(t)), client.SASLPlain(l.props["sasl.username"], l.props["sasl.password"])}
		}},
		{"sasl-ssl-scram", "SASL_TLS", func(l listenerLine) []client.Option {
			return []client.Option{client.WithTLS(l.tlsConfig(t)), client.SASLScram512(l.props["sasl.username"], l.props["sasl.password"])}
		}},
		{"sasl-oauthbearer", "SASL", func(l listenerLine) []client.Option {
			return []client.Option{client.SASLOAuthBearer(l.token(t))}
		}},
		{"sasl-ssl-oauthbearer", "SASL_TLS", func(l listenerLine) []client.Option {
			return []client.Option{client.WithTLS(l.tlsConfig(t)), client.SASLOAuthBearer(l.token(t))}
		}},
	}
	for _, w := range ways {
		l, ok := ls[w.listener]
		if !ok {
			t.Fatalf("no %s listener line in %q", w.listener, out)
		}
		if want := map[string]string{"TLS": "SSL", "SASL": "SASL_PLAINTEXT", "SASL_TLS": "SASL_SSL"}[w.listener]; l.props["security.protocol"] != want {
			t.Fatalf("%s: security.protocol=%q, want %s", w.listener, l.props["security.protocol"], want)
		}
		sp, err := client.NewProducer(append([]client.Option{client.Brokers(l.addrs...)}, w.opts(l)...)...)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, produceN(ctx, t, sp, w.name, 200)...)
		if err := sp.Close(ctx); err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
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
	if !rep.OK() || rep.InLog != len(recs) {
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

// produceN produces n keyed records "way-i" to events with p and fails t
// unless every one is acknowledged.
func produceN(ctx context.Context, t *testing.T, p *client.Producer, way string, n int) []*client.Record {
	t.Helper()
	var recs []*client.Record
	for i := range n {
		recs = append(recs, &client.Record{Topic: "events", Key: []byte(strconv.Itoa(i % 17)), Value: fmt.Appendf(nil, "%s-%d", way, i)})
	}
	if err := p.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatalf("%s: %v", way, err)
	}
	return recs
}

// listenerLine is one secured listener line: NAME ADDRS key=value...
type listenerLine struct {
	name  string
	addrs []string
	props map[string]string
}

func parseListener(t *testing.T, line string) listenerLine {
	t.Helper()
	f := strings.Fields(line)
	if len(f) < 3 {
		t.Fatalf("listener line %q: want NAME ADDRS key=value...", line)
	}
	l := listenerLine{name: f[0], addrs: strings.Split(f[1], ","), props: map[string]string{}}
	if len(l.addrs) != 3 {
		t.Fatalf("listener line %q: want 3 addresses", line)
	}
	for _, kv := range f[2:] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			t.Fatalf("listener line %q: %q is not key=value", line, kv)
		}
		l.props[k] = v
	}
	return l
}

// tlsConfig trusts the CA file the line names, and nothing else.
func (l listenerLine) tlsConfig(t *testing.T) *tls.Config {
	t.Helper()
	pem, err := os.ReadFile(l.props["ssl.ca.location"])
	if err != nil {
		t.Fatalf("%s: %v", l.name, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatalf("%s: no certificate in %s", l.name, l.props["ssl.ca.location"])
	}
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
}

// token reads the token file the line names, as `rollsafe produce
// -sasl-oauth-token-file` does.
func (l listenerLine) token(t *testing.T) func(context.Context) (client.OAuthBearerToken, error) {
	t.Helper()
	b, err := os.ReadFile(l.props["oauthbearer.token.file"])
	if err != nil {
		t.Fatalf("%s: %v", l.name, err)
	}
	tok := strings.TrimSpace(string(b))
	return func(context.Context) (client.OAuthBearerToken, error) {
		return client.OAuthBearerToken{Value: tok}, nil
	}
}

// TestSecurityFlagErrors: bad security flags end the command with exit
// status 2 and a message naming the flag, before any broker starts.
func TestSecurityFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-sasl", "GSSAPI"}, `-sasl: unknown mechanism "GSSAPI"`},
		{[]string{"-sasl", "PLAIN,"}, `-sasl: unknown mechanism ""`},
		{[]string{"-sasl", "SCRAM-SHA-512", "-user", "alice"}, `-user: want NAME:PASSWORD`},
		{[]string{"-sasl", "PLAIN", "-user", ":pw"}, `-user: want NAME:PASSWORD`},
		{[]string{"-tls", "-token-life", "0s"}, `-token-life must be positive`},
		{[]string{"-kafka-version", "2.7"}, `-kafka-version: kafkatest: no Kafka version "2.7"`},
	} {
		var stdout, stderr strings.Builder
		code := run(context.Background(), c.args, &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), c.want) || stdout.Len() != 0 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, stdout.String(), stderr.String(), c.want)
		}
	}
}

// lockedBuffer is a strings.Builder safe for one writer and one reader.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
