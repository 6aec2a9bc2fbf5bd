package sim

import (
	"context"
	"fmt"
	"slices"
)

// Operation is what an ACL allows on a topic.
type Operation uint8

// Topic operations (Kafka's AclOperation).
const (
	OpRead     Operation = 1 << iota // Fetch, DescribeProducers
	OpWrite                          // Produce
	OpDescribe                       // Metadata, ListOffsets, OffsetForLeaderEpoch
)

type aclGrant struct {
	user, topic string
	op          Operation
}

// aclConfig is the authorization configured with ACL and SuperUser.
type aclConfig struct {
	grants    []aclGrant
	txnGrants []aclGrant // TransactionalIDACL: the topic field holds the id
	super     []string
	on        bool // an ACL with no operations still turns authorization on
}

func (a *aclConfig) enabled() bool {
	return a.on || len(a.grants) > 0 || len(a.super) > 0 || len(a.txnGrants) > 0
}

// allowsTxn reports whether user may use transactional id.
func (a *aclConfig) allowsTxn(user, id string) bool {
	if !a.enabled() || slices.Contains(a.super, user) {
		return true
	}
	for _, g := range a.txnGrants {
		if g.user == user && (g.topic == id || g.topic == "*") {
			return true
		}
	}
	return false
}

// validate checks the ACLs against the SASL users configured.
func (a *aclConfig) validate(sec secConfig) error {
	if !a.enabled() {
		return nil
	}
	if len(sec.users) == 0 {
		return fmt.Errorf("%w: ACLs without SASL users (the simulator's only principals)", ErrBadConfig)
	}
	for _, g := range a.grants {
		if g.op != OpRead && g.op != OpWrite && g.op != OpDescribe {
			return fmt.Errorf("%w: ACL operation %d on topic %q", ErrBadConfig, g.op, g.topic)
		}
	}
	return nil
}

// allows reports whether user may do op on topic.
func (a *aclConfig) allows(user, topic string, op Operation) bool {
	if !a.enabled() || slices.Contains(a.super, user) {
		return true
	}
	for _, g := range a.grants {
		if g.user != user || (g.topic != topic && g.topic != "*") {
			continue
		}
		if g.op == op || (op == OpDescribe && (g.op == OpRead || g.op == OpWrite)) {
			return true
		}
	}
	return false
}

// writesSomewhere reports whether user may write some topic: what an
// idempotent InitProducerId needs without IDEMPOTENT_WRITE (KIP-679).
func (a *aclConfig) writesSomewhere(user string) bool {
	if !a.enabled() || slices.Contains(a.super, user) {
		return true
	}
	for _, g := range a.grants {
		if g.user == user && g.op == OpWrite {
			return true
		}
	}
	return false
}

type principalKey struct{}

// withPrincipal carries the connection's authenticated SASL user to the
// handlers.
func withPrincipal(ctx context.Context, s *saslConn) context.Context {
	if s == nil {
		return ctx
	}
	return context.WithValue(ctx, principalKey{}, s.user)
}

// allowedTxn reports whether the request's principal may use
// transactional id.
func (b *broker) allowedTxn(ctx context.Context, id string) bool {
	user, _ := ctx.Value(principalKey{}).(string)
	return b.c.cfg.acls.allowsTxn(user, id)
}

// allowed reports whether the request's principal may do op on topic.
func (b *broker) allowed(ctx context.Context, topic string, op Operation) bool {
	user, _ := ctx.Value(principalKey{}).(string)
	return b.c.cfg.acls.allows(user, topic, op)
}
