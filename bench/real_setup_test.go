//go:build linux

package bench

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rollsafe/rollsafe/kafkatest"
)

// The real-cluster peers outside Go: bench/peerprogs/setup.sh prepares
// them in a cache outside the repository (.ci/run calls it).
const (
	pinnedConfluentKafka = "2.16.1" // confluent-kafka on PyPI, as setup.sh's CK
	peersHowTo           = "run `bench/peerprogs/setup.sh` (needs mvn, JDK 17+, python3-venv) and `apt-get install python3-confluent-kafka kcat`"
)

// peersCache is where setup.sh puts the Java peer and the PyPI venv.
func peersCache() string {
	if d := os.Getenv("ROLLSAFE_PEERS_CACHE"); d != "" {
		return d
	}
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "rollsafe", "peers")
}

// peerProgsDir is bench/peerprogs (tests run in bench/).
func peerProgsDir() string {
	wd, _ := os.Getwd()
	return filepath.Join(wd, "peerprogs")
}

// requirePeer ends t when a peer cannot run here: with CI=true it fails
// (CI must run every peer), otherwise it skips saying how to set it up.
func requirePeer(t testing.TB, name string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if kafkatest.InCI() {
		t.Fatalf("peer %s cannot run: %v (CI=true: every peer must run; .ci/run installs them)", name, err)
	}
	t.Skipf("skipping peer %s: %v; %s", name, err, peersHowTo)
}

// exists returns an error naming path if it is missing.
func exists(path, what string) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("%s not found at %s", what, path)
	}
	return nil
}

// debianPython is the python3 whose dist-packages hold Debian's
// python3-confluent-kafka.
const debianPython = "/usr/bin/python3"

// pythonCmd returns the interpreter and script of a confluent-kafka peer:
// the PyPI venv, or Debian's python3 with its packaged binding.
func pythonCmd(debian bool) (string, []string, error) {
	script := filepath.Join(peerProgsDir(), "python", "peer.py")
	py := filepath.Join(peersCache(), "venv-confluent-kafka-"+pinnedConfluentKafka, "bin", "python")
	what := "the confluent-kafka " + pinnedConfluentKafka + " venv"
	if debian {
		py, what = debianPython, "Debian's python3"
	}
	if err := exists(py, what); err != nil {
		return "", nil, err
	}
	if debian {
		if out, err := exec.Command(py, "-c", "import confluent_kafka").CombinedOutput(); err != nil {
			return "", nil, fmt.Errorf("%s cannot import confluent_kafka (apt-get install python3-confluent-kafka): %v: %s", py, err, out)
		}
	}
	return py, []string{"-u", script}, nil
}

// javaCmd returns java and the arguments running the Java peer.
func javaCmd() (string, []string, error) {
	rt, err := kafkatest.FindRuntime()
	java := rt.Java
	if err != nil {
		p, lerr := exec.LookPath("java")
		if lerr != nil {
			return "", nil, fmt.Errorf("java not found: %w", lerr)
		}
		java = p
	}
	dir := filepath.Join(peersCache(), "java")
	if err := exists(filepath.Join(dir, "classes", "rollsafe", "peer", "Peer.class"), "the compiled Java peer"); err != nil {
		return "", nil, err
	}
	if err := javaPeerCurrent(dir); err != nil {
		return "", nil, err
	}
	return java, []string{"-Xmx512m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
		"-cp", filepath.Join(dir, "lib", "*") + string(os.PathListSeparator) + filepath.Join(dir, "classes"),
		"rollsafe.peer.Peer"}, nil
}

// javaPeerCurrent checks that the Java peer in dir was compiled from the
// sources here: setup.sh stamps it with the SHA-256 of pom.xml and
// Peer.java, and a peer compiled from other sources may lack a mode the
// tests use.
func javaPeerCurrent(dir string) error {
	h := sha256.New()
	for _, f := range []string{filepath.Join("java", "pom.xml"), filepath.Join("java", "src", "main", "java", "rollsafe", "peer", "Peer.java")} {
		b, err := os.ReadFile(filepath.Join(peerProgsDir(), f))
		if err != nil {
			return err
		}
		h.Write(b)
	}
	stamp, err := os.ReadFile(filepath.Join(dir, ".stamp"))
	if err != nil || strings.TrimSpace(string(stamp)) != hex.EncodeToString(h.Sum(nil)) {
		return fmt.Errorf("the Java peer in %s was compiled from other sources than bench/peerprogs/java (rerun setup.sh)", dir)
	}
	return nil
}

// kcatCmd returns kcat's path.
func kcatCmd() (string, error) {
	p, err := exec.LookPath("kcat")
	if err != nil {
		return "", fmt.Errorf("kcat not found (apt-get install kcat): %w", err)
	}
	return p, nil
}
