package kafkatest

import (
	"errors"
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
