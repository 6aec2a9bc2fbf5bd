package protocol

import (
	"slices"
	"sync"
)

// SASLCredentials is a PLAIN or SCRAM mechanism whose user and password
// can be replaced while connections use it (credentials rotated without a
// new producer): each exchange — a new connection's, or a
// re-authentication (KIP-368) — takes the credentials current when it
// starts; connections already authenticated stay as they are. Safe for
// concurrent use.
type SASLCredentials struct {
	name string
	mu   sync.RWMutex
	cur  SASLMechanism
	// used are the secrets of every credential set, so that a broker
	// message echoing an older one is redacted too.
	used []string
}

// NewSASLCredentials returns the mechanism called name (MechanismPlain,
// MechanismScramSHA256 or MechanismScramSHA512) for user and password,
// replaceable with Set. Other names fail as NewSASLMechanism does.
func NewSASLCredentials(name, user, password string) (*SASLCredentials, error) {
	m, err := NewSASLMechanism(name, user, password)
	if err != nil {
		return nil, err
	}
	c := &SASLCredentials{name: m.Name(), cur: m}
	c.used = appendSecrets(c.used, m)
	return c, nil
}

// Set replaces the user and password for the exchanges that start after
// it.
func (c *SASLCredentials) Set(user, password string) {
	m, _ := NewSASLMechanism(c.name, user, password) // the name was checked by NewSASLCredentials
	c.mu.Lock()
	c.cur = m
	c.used = appendSecrets(c.used, m)
	c.mu.Unlock()
}

func appendSecrets(used []string, m SASLMechanism) []string {
	for _, s := range m.(secretHolder).secrets() {
		if s != "" && !slices.Contains(used, s) {
			used = append(used, s)
		}
	}
	return used
}

func (c *SASLCredentials) current() SASLMechanism {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.cur
}

// Name is the mechanism's name.
func (c *SASLCredentials) Name() string { return c.name }

// Start begins an exchange with the current credentials.
func (c *SASLCredentials) Start() (SASLExchange, error) { return c.current().Start() }

// String names the mechanism without its credentials.
func (c *SASLCredentials) String() string { return c.name }

// GoString keeps the credentials out of %#v.
func (c *SASLCredentials) GoString() string {
	return "protocol.SASLCredentials(" + c.name + ", <redacted>)"
}

func (c *SASLCredentials) secrets() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return slices.Clone(c.used)
}
