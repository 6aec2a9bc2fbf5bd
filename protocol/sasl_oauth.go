package protocol

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
)

// MechanismOAuthBearer is SASL OAUTHBEARER (RFC 7628, KIP-255).
const MechanismOAuthBearer = "OAUTHBEARER"

// OAuthBearer errors.
var (
	// ErrTokenProvider: the OAuthBearer token provider failed or returned
	// an unusable token. Unless the provider's error itself matches
	// ErrAuthentication, it is not final: the connection is retried like
	// an unreachable broker, asking the provider again.
	ErrTokenProvider = errors.New("protocol: OAUTHBEARER token provider failed")
	// ErrTokenRejected: the broker validated the token and refused it (RFC
	// 7628's error JSON: invalid_token, insufficient_scope, ...). It comes
	// inside a *SASLError, so it also matches ErrAuthentication.
	ErrTokenRejected = errors.New("protocol: the broker rejected the OAUTHBEARER token")
)

// OAuthBearerToken is what a token provider returns: an OAuth 2 bearer
// token (for Kafka usually a JWT) and what the client knows about it.
type OAuthBearerToken struct {
	// Value is the token as sent (RFC 6750 b64token: letters, digits and
	// -._~+/ with trailing '='). Required.
	Value string
	// Principal is the token's principal as the provider knows it,
	// informational: it is not sent (the broker takes the principal from
	// the token itself), and it appears in the connection's debug log.
	Principal string
	// Expiry is when the token stops being valid. The token is reused for
	// new connections and re-authentications until 80% of its remaining
	// lifetime (from when it was obtained) has passed, then the provider
	// is asked again. Zero: the provider is asked for every
	// authentication.
	Expiry time.Time
	// Extensions are SASL extensions sent with the token (KIP-342): names
	// of letters only ("auth" is reserved), values of printable ASCII.
	Extensions map[string]string
}

// OAuthBearerTokenProvider returns a token for a new authentication; ctx
// is the connection's dial context. It is called from connection
// goroutines, possibly at once from several.
type OAuthBearerTokenProvider func(ctx context.Context) (OAuthBearerToken, error)

// oauthMechanism is SASL OAUTHBEARER over a token provider, caching the
// last token until it ages.
type oauthMechanism struct {
	provider OAuthBearerTokenProvider
	now      func() time.Time

	mu     sync.Mutex
	token  OAuthBearerToken
	fresh  time.Time // the cached token is reused before this
	issued []string  // every token value handed out, for redaction (last few)
}

// SASLOAuthBearer returns the OAUTHBEARER mechanism: each authentication
// (every new connection, and every KIP-368 re-authentication) sends a
// token from provider, reusing the last one while it is young (see
// OAuthBearerToken.Expiry). A provider error, or a token that is empty,
// malformed or already expired, fails the authentication with
// ErrTokenProvider; a token the broker refuses fails it with
// ErrTokenRejected (and ErrAuthentication), naming the broker's status.
// A nil provider fails every authentication with ErrTokenProvider.
func SASLOAuthBearer(provider OAuthBearerTokenProvider) SASLMechanism {
	return &oauthMechanism{provider: provider, now: time.Now}
}

func (m *oauthMechanism) Name() string { return MechanismOAuthBearer }

// String names the mechanism without a token.
func (m *oauthMechanism) String() string { return MechanismOAuthBearer }

// GoString keeps tokens out of %#v.
func (m *oauthMechanism) GoString() string { return "protocol.SASLOAuthBearer(<provider>)" }

func (m *oauthMechanism) secrets() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.issued...)
}

// Start without a context asks the provider with a background context
// bounded by a minute; connections use StartContext.
func (m *oauthMechanism) Start() (SASLExchange, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return m.StartContext(ctx)
}

// StartContext obtains a token (cached or from the provider, bounded by
// ctx) and begins one exchange with it.
func (m *oauthMechanism) StartContext(ctx context.Context) (SASLExchange, error) {
	tok, err := m.get(ctx)
	if err != nil {
		return nil, err
	}
	return &oauthExchange{m: m, tok: tok}, nil
}

// get returns the cached token while it is fresh, or a new one.
func (m *oauthMechanism) get(ctx context.Context) (OAuthBearerToken, error) {
	now := m.now()
	after, renewing := TokenNeededAfter(ctx)
	outlives := func(tok OAuthBearerToken) bool {
		exp := TokenExpiry(tok)
		return !renewing || exp.IsZero() || exp.After(after)
	}
	m.mu.Lock()
	if m.token.Value != "" && now.Before(m.fresh) && outlives(m.token) {
		tok := m.token
		m.mu.Unlock()
		return tok, nil
	}
	m.mu.Unlock()
	if m.provider == nil {
		return OAuthBearerToken{}, fmt.Errorf("%w: no token provider (nil)", ErrTokenProvider)
	}
	tok, err := m.call(ctx)
	if err != nil {
		if errors.Is(err, ErrAuthentication) {
			return OAuthBearerToken{}, fmt.Errorf("%w: %w", ErrTokenProvider, err)
		}
		// Not final: wrapped so that the connection is retried.
		return OAuthBearerToken{}, &tokenProviderError{err: err}
	}
	now = m.now() // the provider may have waited
	if err := checkToken(tok, now); err != nil {
		return OAuthBearerToken{}, &tokenProviderError{err: err}
	}
	if !outlives(tok) {
		return OAuthBearerToken{}, &tokenProviderError{err: fmt.Errorf("%w (the token expires at %s, the session at %s)",
			ErrNoFresherToken, TokenExpiry(tok).UTC().Format(time.RFC3339Nano), after.UTC().Format(time.RFC3339Nano))}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.token = tok
	m.fresh = time.Time{}
	if exp := TokenExpiry(tok); !exp.IsZero() {
		m.fresh = now.Add(exp.Sub(now) * 8 / 10)
	}
	m.issued = append(m.issued, tok.Value)
	if len(m.issued) > 4 {
		m.issued = m.issued[len(m.issued)-4:]
	}
	return tok, nil
}

// call runs the provider; its context error wins when ctx ended.
func (m *oauthMechanism) call(ctx context.Context) (tok OAuthBearerToken, err error) {
	tok, err = m.provider(ctx)
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	return tok, err
}

// forget drops the cached token (the broker refused it).
func (m *oauthMechanism) forget(value string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.token.Value == value {
		m.token, m.fresh = OAuthBearerToken{}, time.Time{}
	}
}

// tokenProviderError is a provider failure: it matches ErrTokenProvider
// and the provider's error, and tells the caller the failure is the
// provider's (not the broker's), so a later attempt may succeed.
type tokenProviderError struct{ err error }

func (e *tokenProviderError) Error() string {
	return fmt.Sprintf("%v: %v", ErrTokenProvider, e.err)
}
func (e *tokenProviderError) Unwrap() []error { return []error{ErrTokenProvider, e.err} }

var (
	// b64token is RFC 6750's token68-like grammar.
	b64tokenRE     = regexp.MustCompile(`^[A-Za-z0-9\-._~+/]+=*$`)
	extensionKeyRE = regexp.MustCompile(`^[A-Za-z]+$`)
	extensionValRE = regexp.MustCompile(`^[\x21-\x7E \t\r\n]+$`)
)

// checkToken refuses a token the broker could only refuse, or that
// could not be framed.
func checkToken(tok OAuthBearerToken, now time.Time) error {
	if tok.Value == "" {
		return errors.New("empty token")
	}
	if !b64tokenRE.MatchString(tok.Value) {
		return errors.New("the token is not an RFC 6750 bearer token (letters, digits and -._~+/ with trailing '=')")
	}
	if exp := TokenExpiry(tok); !exp.IsZero() && !now.Before(exp) {
		return fmt.Errorf("the token expired at %s", exp.UTC().Format(time.RFC3339))
	}
	for k, v := range tok.Extensions {
		switch {
		case k == "auth":
			return errors.New(`the SASL extension name "auth" is reserved`)
		case !extensionKeyRE.MatchString(k):
			return fmt.Errorf("SASL extension name %q: letters only", k)
		case !extensionValRE.MatchString(v):
			return fmt.Errorf("SASL extension %q: the value must be printable ASCII", k)
		}
	}
	return nil
}

// oauthExchange sends the client's first message and reads the broker's
// answer: empty on success, an error JSON (RFC 7628 section 3.2.2) on
// failure, which is acknowledged with a single 0x01 so that the broker
// ends the exchange with SASL_AUTHENTICATION_FAILED.
type oauthExchange struct {
	m      *oauthMechanism
	tok    OAuthBearerToken
	stage  int // 0: send first message; 1: await the answer; 2: error acknowledged
	status *oauthStatus
}

// oauthStatus is the broker's error JSON.
type oauthStatus struct {
	Status        string `json:"status"`
	Scope         string `json:"scope"`
	OpenIDConfig  string `json:"openid-configuration"`
	raw           string
	tokenExpired  bool
	tokenExpiryAt time.Time
}

func (e *oauthExchange) Step(challenge []byte) ([]byte, bool, error) {
	switch e.stage {
	case 0:
		e.stage = 1
		return e.firstMessage(), false, nil
	case 1:
		if len(challenge) == 0 {
			e.stage = 3
			return nil, true, nil
		}
		e.stage = 2
		e.status = parseOAuthStatus(challenge)
		exp := TokenExpiry(e.tok)
		e.status.tokenExpiryAt = exp
		e.status.tokenExpired = !exp.IsZero() && !e.m.now().Before(exp)
		e.m.forget(e.tok.Value)
		return []byte{0x01}, false, nil
	case 2:
		// The broker must fail the exchange after the acknowledgement.
		return nil, false, fmt.Errorf("%w: %s (and the broker then reported success)", ErrTokenRejected, e.status)
	}
	return nil, false, errors.New("OAUTHBEARER: message after the exchange ended")
}

// firstMessage is RFC 7628's GS2 client first message without an
// authorization id: "n,," 0x01 "auth=Bearer " token 0x01 (key=value 0x01)*
// 0x01, extensions sorted by name.
func (e *oauthExchange) firstMessage() []byte {
	var b strings.Builder
	b.WriteString("n,,\x01auth=Bearer ")
	b.WriteString(e.tok.Value)
	b.WriteByte(0x01)
	keys := make([]string, 0, len(e.tok.Extensions))
	for k := range e.tok.Extensions {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(e.tok.Extensions[k])
		b.WriteByte(0x01)
	}
	b.WriteByte(0x01)
	return []byte(b.String())
}

// describe is what the connection logs about the accepted token.
func (e *oauthExchange) describe() []any {
	return []any{"mechanism", MechanismOAuthBearer, "principal", e.tok.Principal, "token_expiry", e.tok.Expiry}
}

// rejected turns the broker's final SASL_AUTHENTICATION_FAILED into the
// exchange's error when the broker sent an error JSON first.
func (e *oauthExchange) rejected(kerr error) error {
	if e.status == nil {
		return kerr
	}
	return &tokenRejectedError{status: e.status, err: kerr}
}

// tokenRejectedError is a token refused by the broker.
type tokenRejectedError struct {
	status *oauthStatus
	err    error
}

func (e *tokenRejectedError) Error() string { return fmt.Sprintf("%v: %s", ErrTokenRejected, e.status) }
func (e *tokenRejectedError) Unwrap() []error {
	return []error{ErrTokenRejected, e.err}
}

func parseOAuthStatus(b []byte) *oauthStatus {
	s := &oauthStatus{}
	if err := json.Unmarshal(b, s); err != nil || s.Status == "" {
		s.Status = ""
		s.raw = oneLine(string(b), 200)
	}
	return s
}

// String is one line: the status, scope and discovery URL the broker
// gave, and whether the token had expired.
func (s *oauthStatus) String() string {
	var b strings.Builder
	if s.Status != "" {
		fmt.Fprintf(&b, "status %q", s.Status)
	} else {
		fmt.Fprintf(&b, "unparsable error message %q", s.raw)
	}
	if s.Scope != "" {
		fmt.Fprintf(&b, ", scope %q", s.Scope)
	}
	if s.OpenIDConfig != "" {
		fmt.Fprintf(&b, ", openid-configuration %q", s.OpenIDConfig)
	}
	if s.tokenExpired {
		fmt.Fprintf(&b, " (the token expired at %s)", s.tokenExpiryAt.UTC().Format(time.RFC3339))
	}
	return b.String()
}

// oneLine cuts s to n bytes and replaces line breaks.
func oneLine(s string, n int) string {
	if len(s) > n {
		s = s[:n] + "..."
	}
	return strings.NewReplacer("\n", " ", "\r", " ").Replace(s)
}

// tokenExpiredError is a token the broker refused after it expired on the
// way (it was valid when checked before sending): not final, the next
// attempt obtains a fresh one. It matches ErrTokenRejected and the
// broker's error, not ErrAuthentication.
type tokenExpiredError struct{ err error }

func (e *tokenExpiredError) Error() string {
	return fmt.Sprintf("protocol: the OAUTHBEARER token expired before the broker checked it (a fresh one is obtained for the next attempt): %v", e.err)
}
func (e *tokenExpiredError) Unwrap() []error { return []error{ErrTokenRejected, e.err} }

// expiredInTransit reports that the broker refused the token and it had
// expired by the time the refusal came.
func (e *oauthExchange) expiredInTransit() bool {
	return e.status != nil && e.status.tokenExpired
}

// ErrNoFresherToken: a re-authentication found no token expiring after
// the session it would renew (the provider gave the token that session
// was opened with, or one no longer-lived): re-authenticating with it
// would only open a shorter session. It is not final.
var ErrNoFresherToken = errors.New("protocol: no OAUTHBEARER token outliving the current session")

type tokenAfterKey struct{}

// TokenNeededAfter reports, to a token provider called for a KIP-368
// re-authentication, the end of the session being renewed: a token
// expiring at or before it is of no use (ErrNoFresherToken), so a
// provider that refreshes tokens asynchronously should wait (until ctx
// ends) for one expiring later. ok is false for a new connection.
func TokenNeededAfter(ctx context.Context) (t time.Time, ok bool) {
	t, ok = ctx.Value(tokenAfterKey{}).(time.Time)
	return t, ok
}

func withTokenNeededAfter(ctx context.Context, t time.Time) context.Context {
	return context.WithValue(ctx, tokenAfterKey{}, t)
}

// TokenExpiry is when tok stops being valid: its Expiry, or the "exp"
// claim of its value when that is a JWT expiring earlier (JWT expiries
// are whole seconds, and brokers go by the claim). Zero: unknown.
func TokenExpiry(tok OAuthBearerToken) time.Time {
	exp := tok.Expiry
	if claim, ok := jwtExpiry(tok.Value); ok && (exp.IsZero() || claim.Before(exp)) {
		exp = claim
	}
	return exp
}

// jwtExpiry reads the numeric "exp" claim of a JWS compact serialization.
func jwtExpiry(value string) (time.Time, bool) {
	parts := strings.Split(value, ".")
	if len(parts) != 3 {
		return time.Time{}, false
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return time.Time{}, false
	}
	var claims struct {
		Exp *float64 `json:"exp"`
	}
	if json.Unmarshal(raw, &claims) != nil || claims.Exp == nil {
		return time.Time{}, false
	}
	sec, frac := math.Modf(*claims.Exp)
	return time.Unix(int64(sec), int64(frac*1e9)), true
}
