package kafkatest

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestFindRuntimeMissingJars(t *testing.T) {
	t.Setenv("ROLLSAFE_KAFKA_LIB", t.TempDir())
	_, err := FindRuntime()
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("FindRuntime with no jars: %v, want ErrUnavailable", err)
	}
	if !strings.Contains(err.Error(), "fetch.sh") {
		t.Fatalf("error does not say how to fetch: %v", err)
	}
}

func TestParseJavaVersion(t *testing.T) {
	for _, tc := range []struct {
		out  string
		want int
	}{
		{"openjdk version \"17.0.15\" 2025-04-15\nOpenJDK Runtime Environment", 17},
		{"Picked up JAVA_TOOL_OPTIONS: -Xss1m\nopenjdk version \"25\" 2025-09-16", 25},
		{"java version \"1.8.0_402\"", 8},
	} {
		got, err := parseJavaVersion([]byte(tc.out))
		if err != nil || got != tc.want {
			t.Errorf("%q: %d, %v; want %d", tc.out, got, err, tc.want)
		}
	}
	if _, err := parseJavaVersion([]byte("bash: java: not found")); err == nil {
		t.Error("no version found, no error")
	}
}

// A node whose broker could not bind a port (another process took it
// after freePorts released it) is recognised from its log, which is what
// lets Launch try again on new ports; other start failures are not.
func TestPortTakenFromLog(t *testing.T) {
	nd := &node{dir: t.TempDir()}
	if nd.portTaken() {
		t.Fatal("no log: port taken")
	}
	write := func(s string) {
		if err := os.WriteFile(nd.logPath(), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("[04:45:13,466] ERROR [BrokerServer id=0] Fatal error during broker startup.\njava.lang.OutOfMemoryError: Java heap space\n")
	if nd.portTaken() {
		t.Fatal("out of memory read as a port taken")
	}
	write("org.apache.kafka.common.KafkaException: Socket server failed to bind to 127.0.0.1:33649: Address already in use.\n" +
		"Caused by: java.net.BindException: Address already in use\n")
	if !nd.portTaken() {
		t.Fatal("bind failure not recognised")
	}
}
