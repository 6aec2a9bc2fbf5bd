package idempotence

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rollsafe/rollsafe/kafkaerr"
)

// README's rule table names codes by number; each row says what kafkaerr's
// table says of them, and the rows of the producer's own rules (duplicate,
// out of order, stale epoch, unknown producer, too large, corrupt) list
// every code the table gives that action.
func TestReadmeRulesMatchCodeTable(t *testing.T) {
	raw, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := readmeRuleRows(t, string(raw))
	numbers := regexp.MustCompile(`-?\d+`)
	codesIn := func(s string) []kafkaerr.Code {
		var cs []kafkaerr.Code
		for _, n := range numbers.FindAllString(s, -1) {
			v, _ := strconv.Atoi(n)
			cs = append(cs, kafkaerr.Code(v))
		}
		return cs
	}
	withAction := func(a kafkaerr.Action, acksAll bool) []kafkaerr.Code {
		var cs []kafkaerr.Code
		for _, c := range kafkaerr.Codes() {
			if c.Action(acksAll) == a {
				cs = append(cs, c)
			}
		}
		return cs
	}
	same := func(what string, got, want []kafkaerr.Code) {
		t.Helper()
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("README, %s: codes %v, the table's %v", what, got, want)
		}
	}
	// rows: the first cell's start, and what its codes are.
	checks := []struct {
		prefix string
		check  func(first, decision string)
	}{
		{"0 NONE", func(first, _ string) { same(first, codesIn(first), withAction(kafkaerr.Ack, true)) }},
		{"46 DUPLICATE_SEQUENCE_NUMBER", func(first, _ string) { same(first, codesIn(first), withAction(kafkaerr.AckDuplicate, true)) }},
		{"3, 5, 6, 19, 74, 75, class NotAppended", func(first, decision string) {
			for _, c := range codesIn(first) {
				if c.Action(false) != kafkaerr.Retry {
					t.Errorf("README: %v is retried unchanged, the table says %v", c, c.Action(false))
				}
			}
			i := strings.Index(decision, " and transport also `RefreshMetadata`")
			if i < 0 {
				t.Fatalf("README: the not-appended row no longer names the codes that refresh metadata: %s", decision)
			}
			list := decision[strings.LastIndex(decision[:i], " ")+1 : i]
			var refresh []kafkaerr.Code
			for _, c := range kafkaerr.Codes() {
				if c.RefreshMetadata() {
					refresh = append(refresh, c)
				}
			}
			same("codes that refresh metadata", codesIn(strings.ReplaceAll(list, "/", " ")), refresh)
			if !kafkaerr.Transport.RefreshMetadata() {
				t.Error("README: transport refreshes metadata, the table says not")
			}
		}},
		{"3 or 6 with class MaybeAppended", func(first, _ string) {
			var moved []kafkaerr.Code // retried under acks=1, unknown under acks=all
			for _, c := range kafkaerr.Codes() {
				if c.Action(false) == kafkaerr.Retry && c.Action(true) == kafkaerr.RetryMaybe {
					moved = append(moved, c)
				}
			}
			same(first, codesIn(strings.SplitN(first, "(", 2)[0]), moved)
		}},
		{"7, 20, class MaybeAppended", func(first, _ string) {
			for _, c := range codesIn(first) {
				if c.Action(false) != kafkaerr.RetryMaybe || c.Action(true) != kafkaerr.RetryMaybe {
					t.Errorf("README: %v is unknown, the table says %v", c, c.Action(false))
				}
			}
		}},
		{"45 behind", func(first, _ string) { same(first, codesIn(first), withAction(kafkaerr.OutOfOrder, true)) }},
		{"45 on the first unacknowledged batch, 59", func(first, _ string) {
			same(first, codesIn(first), append(withAction(kafkaerr.OutOfOrder, true), withAction(kafkaerr.UnknownProducer, true)...))
		}},
		{"47 on a batch with an unknown outcome", func(first, _ string) { same(first, codesIn(first), withAction(kafkaerr.StaleEpoch, true)) }},
		{"47 on a batch known not appended", func(first, _ string) { same(first, codesIn(first), withAction(kafkaerr.StaleEpoch, true)) }},
		{"10 MESSAGE_TOO_LARGE", func(first, _ string) { same(first, codesIn(first), withAction(kafkaerr.TooLarge, true)) }},
		{"class NotAppendedFatal", func(first, _ string) {
			for _, c := range codesIn(first) {
				if !c.Fatal() {
					t.Errorf("README: %v fails at once, the table says %v", c, c.Action(true))
				}
			}
		}},
		{"2 CORRUPT_MESSAGE", func(first, _ string) { same(first, codesIn(first), withAction(kafkaerr.RetryBounded, true)) }},
	}
	named := regexp.MustCompile(`(-?\d+) ([A-Z][A-Z_]+[A-Z])`)
	for _, c := range checks {
		found := false
		for _, r := range rows {
			if strings.HasPrefix(r[0], c.prefix) {
				found = true
				c.check(r[0], r[1])
			}
		}
		if !found {
			t.Errorf("README's rule table has no row starting %q", c.prefix)
		}
	}
	for _, r := range rows {
		for _, m := range named.FindAllStringSubmatch(r[0], -1) {
			v, _ := strconv.Atoi(m[1])
			if got := kafkaerr.Code(v).String(); got != m[2] {
				t.Errorf("README names code %s %s, the table %s", m[1], m[2], got)
			}
		}
	}
}

// readmeRuleRows returns the cells of the table under "## Rules".
func readmeRuleRows(t *testing.T, readme string) [][2]string {
	i := strings.Index(readme, "\n## Rules\n")
	if i < 0 {
		t.Fatal("README has no Rules section")
	}
	var rows [][2]string
	for _, line := range strings.Split(readme[i+1:], "\n")[1:] {
		if strings.HasPrefix(line, "## ") {
			break
		}
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| Input") {
			continue
		}
		cells := strings.SplitN(strings.Trim(line, "| "), " | ", 2)
		if len(cells) == 2 {
			rows = append(rows, [2]string{cells[0], cells[1]})
		}
	}
	if len(rows) < 20 {
		t.Fatalf("README's rule table has %d rows", len(rows))
	}
	return rows
}
