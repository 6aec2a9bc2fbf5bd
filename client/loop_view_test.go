package client

import (
	"testing"

	"github.com/rollsafe/rollsafe/protocol"
)

// The loop routes by the newest metadata snapshot its inputs carried,
// whatever order they came in: an older one taken later (a refresh's,
// queued before the loop applied a leader hint) does not replace it.
func TestLoopKeepsNewestView(t *testing.T) {
	m := protocol.NewMetadata(nil, protocol.MetadataConfig{})
	defer m.Close()
	older := m.ApplyLeaderHints()
	newer := m.ApplyLeaderHints()
	l := &loop{}
	l.newestView([]any{metadataIn{view: newer}, closeIn{}, metadataIn{view: older}})
	if l.view != newer {
		t.Fatalf("view seq %d, want the newest, %d", l.view.Seq(), newer.Seq())
	}
	l.newestView([]any{metadataIn{view: older}})
	if l.view != newer {
		t.Fatalf("an older snapshot replaced the view (seq %d)", l.view.Seq())
	}
}
