package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSimKcat builds `rollsafe sim`, runs it, and has kcat (librdkafka)
// produce to it idempotently with every codec and consume everything back.
// kcat must be installed (CI installs it): without it the test fails.
func TestSimKcat(t *testing.T) {
	kcat, err := exec.LookPath("kcat")
	if err != nil {
		t.Fatalf("kcat is required (apt-get install kcat): %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Second)
	defer cancel()

	bin := filepath.Join(t.TempDir(), "rollsafe")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/rollsafe/rollsafe/cmd/rollsafe")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	simCmd := exec.CommandContext(ctx, bin, "sim", "-brokers", "3", "-topic", "kc:4", "-topic", "other:1")
	var simErr bytes.Buffer
	simCmd.Stderr = &simErr
	stdout, err := simCmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := simCmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := false
	defer func() {
		if !exited {
			_ = simCmd.Process.Kill()
			_ = simCmd.Wait()
		}
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("reading bootstrap line: %v (stderr: %s)", err, simErr.String())
	}
	bootstrap := strings.TrimSpace(line)
	if n := len(strings.Split(bootstrap, ",")); n != 3 {
		t.Fatalf("bootstrap line %q has %d addresses, want 3", bootstrap, n)
	}

	codecs := []string{"none", "gzip", "snappy", "lz4", "zstd"}
	const perCodec = 500
	want := map[int][]string{}
	for i, codec := range codecs {
		p := i % 4
		var in strings.Builder
		for j := 0; j < perCodec; j++ {
			v := fmt.Sprintf("%s-%04d", codec, j)
			in.WriteString(v + "\n")
			want[p] = append(want[p], v)
		}
		cmd := exec.CommandContext(ctx, kcat, "-b", bootstrap, "-P", "-t", "kc", "-p", fmt.Sprint(p),
			"-z", codec, "-X", "enable.idempotence=true", "-X", "linger.ms=5", "-X", "batch.num.messages=100")
		cmd.Stdin = strings.NewReader(in.String())
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("kcat produce (%s): %v\n%s", codec, err, out)
		}
	}
	for p := 0; p < 4; p++ {
		cmd := exec.CommandContext(ctx, kcat, "-b", bootstrap, "-C", "-t", "kc", "-p", fmt.Sprint(p),
			"-o", "beginning", "-e", "-q", "-f", "%o %s\n")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("kcat consume partition %d: %v\n%s", p, err, stderr.String())
		}
		lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		if len(want[p]) == 0 {
			if len(out) != 0 {
				t.Fatalf("partition %d: unexpected records %q", p, out)
			}
			continue
		}
		if len(lines) != len(want[p]) {
			t.Fatalf("partition %d: consumed %d records, want %d", p, len(lines), len(want[p]))
		}
		for i, l := range lines {
			if wantLine := fmt.Sprintf("%d %s", i, want[p][i]); l != wantLine {
				t.Fatalf("partition %d record %d: got %q, want %q", p, i, l, wantLine)
			}
		}
	}
	// The metadata listing names both topics and all three brokers.
	out, err := exec.CommandContext(ctx, kcat, "-b", bootstrap, "-L").CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte(`topic "other" with 1 partitions`)) || !bytes.Contains(out, []byte("3 brokers")) {
		t.Fatalf("kcat -L: %v\n%s", err, out)
	}

	if err := simCmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err = simCmd.Wait()
	exited = true
	if err != nil {
		t.Fatalf("rollsafe sim exited with %v; stderr:\n%s", err, simErr.String())
	}
	if testing.Verbose() {
		_, _ = os.Stderr.WriteString(simErr.String())
	}
}
