package kafkatest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// ErrUnavailable means Java or the Kafka jars were not found: the cluster
// cannot be started on this machine.
var ErrUnavailable = errors.New("kafkatest: real Kafka unavailable")

// HowToRun says how to make the real-cluster tests runnable.
const HowToRun = "run `kafkatest/fetch.sh` (needs mvn and Java 17+), then `go test ./kafkatest/...`"

// Runtime is where the broker's java binary and jars are.
type Runtime struct {
	Java    string  // path of the java binary
	Lib     string  // directory holding the broker's jars
	Version Version // the Kafka release in Lib ("": DefaultVersion)
}

// Classpath is the JVM classpath of the broker: every jar in Lib.
func (r Runtime) Classpath() string { return filepath.Join(r.Lib, "*") }

// LibDir is the default version's jar directory (see LibDirFor).
func LibDir() string { return LibDirFor(DefaultVersion) }

// LibDirFor is the jar directory of version v: fetch.sh's cache
// ${XDG_CACHE_HOME:-$HOME/.cache}/rollsafe/kafka-<version>/lib, or, for the
// default version, $ROLLSAFE_KAFKA_LIB when set.
func LibDirFor(v Version) string {
	v = v.orDefault()
	if d := os.Getenv("ROLLSAFE_KAFKA_LIB"); d != "" && v == DefaultVersion {
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
	return filepath.Join(base, "rollsafe", "kafka-"+string(v), "lib")
}

// FindRuntime is FindRuntimeFor the default version.
func FindRuntime() (Runtime, error) { return FindRuntimeFor(DefaultVersion) }

// FindRuntimeFor locates java (17+) and version v's broker jars, or
// returns an error matching ErrUnavailable that says what is missing and
// how to fix it.
func FindRuntimeFor(v Version) (Runtime, error) {
	v = v.orDefault()
	lib := LibDirFor(v)
	jar := filepath.Join(lib, "kafka_"+v.scala()+"-"+string(v)+".jar")
	if _, err := os.Stat(jar); err != nil {
		return Runtime{}, fmt.Errorf("%w: %s not found; %s", ErrUnavailable, jar, HowToRun)
	}
	java := os.Getenv("ROLLSAFE_JAVA")
	if java == "" {
		if jh := os.Getenv("JAVA_HOME"); jh != "" {
			java = filepath.Join(jh, "bin", "java")
		} else if p, err := exec.LookPath("java"); err == nil {
			java = p
		} else {
			return Runtime{}, fmt.Errorf("%w: java not found (Kafka %s needs Java 17+ here); %s", ErrUnavailable, v, HowToRun)
		}
	}
	major, err := javaMajor(java)
	if err != nil {
		return Runtime{}, fmt.Errorf("%w: %s: %w", ErrUnavailable, java, err)
	}
	if major < 17 {
		return Runtime{}, fmt.Errorf("%w: %s is Java %d; Kafka %s needs Java 17+ here", ErrUnavailable, java, major, v)
	}
	return Runtime{Java: java, Lib: lib, Version: v}, nil
}

var versionRE = regexp.MustCompile(`version "(\d+)(?:\.(\d+))?`)

// javaMajor runs `java -version` and returns the major version.
func javaMajor(java string) (int, error) {
	out, err := exec.Command(java, "-version").CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("java -version: %w", err)
	}
	return parseJavaVersion(out)
}

// parseJavaVersion finds the major version in `java -version` output.
func parseJavaVersion(out []byte) (int, error) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := versionRE.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		if n == 1 && m[2] != "" { // 1.8 style
			n, _ = strconv.Atoi(m[2])
		}
		return n, nil
	}
	return 0, fmt.Errorf("no version in %q", strings.TrimSpace(string(out)))
}
