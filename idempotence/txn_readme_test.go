package idempotence

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

// README's transaction rules name codes by number and name; each pair is
// kafkaerr's, and the rows of the coordinator's codes say what its
// TxnAction says.
func TestReadmeTxnRulesMatchCodeTable(t *testing.T) {
	raw, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	i := strings.Index(text, "\n## Transactions\n")
	if i < 0 {
		t.Fatal("README has no Transactions section")
	}
	text = text[i+1:]
	text = text[:strings.Index(text, "\n## ")]
	pair := regexp.MustCompile(`(\d+) ([A-Z][A-Z_]{3,})`)
	number := regexp.MustCompile(`\b\d+\b`)
	kip := regexp.MustCompile(`KIP-\d+`)
	rows := map[string]kafkaerr.TxnAction{
		"| 14 COORDINATOR_LOAD_IN_PROGRESS": kafkaerr.TxnRetry,
		"| 16 NOT_COORDINATOR":              kafkaerr.TxnRediscover,
		"| 47 INVALID_PRODUCER_EPOCH":       kafkaerr.TxnStaleEpoch,
		"| any other code":                  kafkaerr.TxnFatal,
	}
	seen := 0
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "| ") {
			continue
		}
		first := kip.ReplaceAllString(strings.SplitN(line, " | ", 2)[0], "")
		for _, m := range pair.FindAllStringSubmatch(first, -1) {
			n, _ := strconv.Atoi(m[1])
			if got := kafkaerr.Code(n).String(); got != m[2] {
				t.Errorf("README names %s %s; kafkaerr's %d is %s", m[1], m[2], n, got)
			}
		}
		for prefix, want := range rows {
			if !strings.HasPrefix(line, prefix) {
				continue
			}
			seen++
			for _, s := range number.FindAllString(first, -1) {
				n, _ := strconv.Atoi(s)
				if got := kafkaerr.Code(n).TxnAction(); got != want {
					t.Errorf("README row %q: code %d is %v in kafkaerr, the row says %v", prefix, n, got, want)
				}
			}
		}
	}
	if seen != len(rows) {
		t.Errorf("README's transaction rules: %d of the %d checked rows found", seen, len(rows))
	}
}
