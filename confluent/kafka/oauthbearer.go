package kafka

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rollsafe/rollsafe/client"
	"github.com/rollsafe/rollsafe/protocol"
)

// OAuthBearerToken represents the data to be transmitted to a broker
// during SASL/OAUTHBEARER authentication.
type OAuthBearerToken struct {
	// Token value, often (but not necessarily) a JWS compact
	// serialization as per RFC 7515 section 3.1; it must meet the
	// regular expression for a SASL/OAUTHBEARER value defined in RFC 7628
	// section 3.1.
	TokenValue string
	// Metadata about the token indicating when it expires (local time);
	// it must represent a time in the future.
	Expiration time.Time
	// Metadata about the token indicating the Kafka principal name to
	// which it applies (for example, "admin").
	Principal string
	// SASL extensions, if any, to be communicated to the broker during
	// authentication (all keys and values of which must meet the regular
	// expressions defined in RFC 7628 section 3.1, and it must not contain
	// the reserved "auth" key).
	Extensions map[string]string
}

// OAuthBearerTokenRefresh indicates token refresh is required: the
// application answers it with SetOAuthBearerToken or
// SetOAuthBearerTokenFailure. It comes on Events() once when the producer
// is created and again when 80% of the token's lifetime has passed (as
// librdkafka's does), and when a connection needs a token none is set for.
type OAuthBearerTokenRefresh struct {
	// Config is the value of the sasl.oauthbearer.config property.
	Config string
}

func (o OAuthBearerTokenRefresh) String() string { return "OAuthBearerTokenRefresh" }

// oauthRefreshRetry is how long after SetOAuthBearerTokenFailure a new
// refresh event is sent (librdkafka waits 10 s).
const oauthRefreshRetry = 10 * time.Second

// oauthTokens is the producer's OAUTHBEARER token as the application sets
// it, offered to the client's connections as a token provider.
type oauthTokens struct {
	config string
	send   func(Event) // puts an event on Events() without blocking the caller

	mu      sync.Mutex
	token   OAuthBearerToken
	failure string
	changed chan struct{} // closed and replaced whenever token or failure changes
	asked   bool          // a refresh event is out, unanswered
	timer   *time.Timer   // the next refresh event
	closed  bool
}

func newOAuthTokens(config string, send func(Event)) *oauthTokens {
	return &oauthTokens{config: config, send: send, changed: make(chan struct{})}
}

// refresh sends an OAuthBearerTokenRefresh event unless one is out; o.mu
// is held.
func (o *oauthTokens) refreshLocked() {
	if o.asked || o.closed {
		return
	}
	o.asked = true
	o.send(OAuthBearerTokenRefresh{Config: o.config})
}

func (o *oauthTokens) scheduleLocked(d time.Duration) {
	if o.timer != nil {
		o.timer.Stop()
	}
	if o.closed {
		return
	}
	o.timer = time.AfterFunc(d, func() {
		o.mu.Lock()
		defer o.mu.Unlock()
		o.refreshLocked()
	})
}

func (o *oauthTokens) notifyLocked() {
	close(o.changed)
	o.changed = make(chan struct{})
}

func (o *oauthTokens) set(t OAuthBearerToken) error {
	ct := clientToken(t)
	if err := checkOAuthToken(ct); err != nil {
		return newErrorFromString(ErrInvalidArg, err.Error())
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.token, o.failure, o.asked = t, "", false
	// librdkafka asks for the next token at 80% of this one's lifetime,
	// counted to its "exp" claim when that comes first (whole seconds).
	o.scheduleLocked(time.Until(protocol.TokenExpiry(ct)) * 8 / 10)
	o.notifyLocked()
	return nil
}

func (o *oauthTokens) fail(errstr string) error {
	if errstr == "" {
		return newErrorFromString(ErrInvalidArg, "SetOAuthBearerTokenFailure: the error string is empty")
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.failure, o.asked = errstr, false
	o.scheduleLocked(oauthRefreshRetry)
	o.notifyLocked()
	return nil
}

func (o *oauthTokens) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed = true
	if o.timer != nil {
		o.timer.Stop()
	}
}

// provide is the client's token provider: the token the application set
// while it is valid (and, for a re-authentication, outlives the session it
// renews: client.TokenNeededAfter); otherwise it asks for one (a refresh
// event, at once rather than at 80% of the token's lifetime) and waits
// until the application answers or ctx ends.
func (o *oauthTokens) provide(ctx context.Context) (client.OAuthBearerToken, error) {
	after, renewing := client.TokenNeededAfter(ctx)
	for {
		o.mu.Lock()
		if o.token.TokenValue != "" {
			ct := clientToken(o.token)
			exp := protocol.TokenExpiry(ct)
			if time.Now().Before(exp) && (!renewing || exp.After(after)) {
				o.mu.Unlock()
				return ct, nil
			}
		}
		if o.failure != "" {
			f := o.failure
			o.mu.Unlock()
			return client.OAuthBearerToken{}, fmt.Errorf("SetOAuthBearerTokenFailure: %s", f)
		}
		o.refreshLocked()
		ch := o.changed
		o.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return client.OAuthBearerToken{}, fmt.Errorf("no token set (SetOAuthBearerToken) after an OAuthBearerTokenRefresh event: %w", ctx.Err())
		}
	}
}

func clientToken(t OAuthBearerToken) client.OAuthBearerToken {
	return client.OAuthBearerToken{Value: t.TokenValue, Principal: t.Principal, Expiry: t.Expiration, Extensions: t.Extensions}
}

var (
	oauthValueRE  = regexp.MustCompile(`^[A-Za-z0-9\-._~+/]+=*$`)
	oauthExtKeyRE = regexp.MustCompile(`^[A-Za-z]+$`)
	oauthExtValRE = regexp.MustCompile(`^[\x21-\x7E \t\r\n]+$`)
)

// checkOAuthToken applies librdkafka's checks of SetOAuthBearerToken.
func checkOAuthToken(t client.OAuthBearerToken) error {
	switch {
	case !oauthValueRE.MatchString(t.Value):
		return errors.New("SetOAuthBearerToken: invalid token value (RFC 7628 section 3.1)")
	case t.Principal == "":
		return errors.New("SetOAuthBearerToken: the principal is empty")
	case !time.Now().Before(t.Expiry):
		return errors.New("SetOAuthBearerToken: the expiration must be in the future")
	}
	for k, v := range t.Extensions {
		switch {
		case k == "auth":
			return errors.New(`SetOAuthBearerToken: the extension key "auth" is reserved`)
		case !oauthExtKeyRE.MatchString(k):
			return fmt.Errorf("SetOAuthBearerToken: invalid extension key %q", k)
		case !oauthExtValRE.MatchString(v):
			return fmt.Errorf("SetOAuthBearerToken: invalid value of extension %q", k)
		}
	}
	return nil
}

// SetOAuthBearerToken sets the data to be transmitted to a broker during
// SASL/OAUTHBEARER authentication. It returns nil on success, otherwise an
// error (ErrInvalidArg: the token is invalid; ErrState: OAUTHBEARER is
// not the configured mechanism, or its unsecured JWT handler is on). The
// token is used for every new connection and re-authentication until it
// expires; an OAuthBearerTokenRefresh event asks for the next one at 80%
// of its lifetime.
func (p *Producer) SetOAuthBearerToken(oauthBearerToken OAuthBearerToken) error {
	if p.oauth == nil {
		return newErrorFromString(ErrState, "SASL/OAUTHBEARER is not the configured authentication mechanism (or enable.sasl.oauthbearer.unsecure.jwt is set)")
	}
	return p.oauth.set(oauthBearerToken)
}

// SetOAuthBearerTokenFailure sets the error message describing why token
// retrieval/setting failed: connections needing a token fail with it (and
// are retried; their messages are not failed for it before
// message.timeout.ms), and a new OAuthBearerTokenRefresh event comes 10 s
// later. ErrState as for SetOAuthBearerToken; ErrInvalidArg for an empty
// errstr.
func (p *Producer) SetOAuthBearerTokenFailure(errstr string) error {
	if p.oauth == nil {
		return newErrorFromString(ErrState, "SASL/OAUTHBEARER is not the configured authentication mechanism (or enable.sasl.oauthbearer.unsecure.jwt is set)")
	}
	return p.oauth.fail(errstr)
}

// unsecuredJWT is librdkafka's enable.sasl.oauthbearer.unsecure.jwt
// token maker: sasl.oauthbearer.config holds space-separated
// principal=<name> (required), lifeSeconds=<n> (default 3600),
// scopeClaimName=<name> (default "scope"), scope=<a,b> and
// extension_<name>=<value>.
type unsecuredJWT struct {
	principal  string
	life       time.Duration
	scopeClaim string
	scope      []string
	extensions map[string]string
}

func parseUnsecuredJWTConfig(cfg string) (*unsecuredJWT, error) {
	u := &unsecuredJWT{life: time.Hour, scopeClaim: "scope", extensions: map[string]string{}}
	for _, f := range strings.Fields(cfg) {
		k, v, ok := strings.Cut(f, "=")
		if !ok || v == "" {
			return nil, fmt.Errorf("%q is not key=value", f)
		}
		switch {
		case k == "principal":
			u.principal = v
		case k == "lifeSeconds":
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return nil, fmt.Errorf("lifeSeconds %q is not a positive integer", v)
			}
			u.life = time.Duration(n) * time.Second
		case k == "scopeClaimName":
			u.scopeClaim = v
		case k == "scope":
			u.scope = strings.Split(v, ",")
		case strings.HasPrefix(k, "extension_"):
			u.extensions[strings.TrimPrefix(k, "extension_")] = v
		default:
			return nil, fmt.Errorf("unknown key %q (want principal, lifeSeconds, scopeClaimName, scope, extension_NAME)", k)
		}
	}
	if u.principal == "" {
		return nil, errors.New("principal=<name> is required")
	}
	now := time.Now()
	if err := checkOAuthToken(u.token(now)); err != nil {
		return nil, err
	}
	return u, nil
}

// token makes an unsecured JWS ("alg":"none", no signature) for the
// principal, issued now.
func (u *unsecuredJWT) token(now time.Time) client.OAuthBearerToken {
	exp := now.Add(u.life)
	claims := map[string]any{"sub": u.principal, "iat": now.Unix(), "exp": exp.Unix()}
	if len(u.scope) > 0 {
		claims[u.scopeClaim] = u.scope
	}
	header, _ := json.Marshal(map[string]string{"alg": "none"})
	body, _ := json.Marshal(claims) // strings and numbers only: cannot fail
	enc := base64.RawURLEncoding
	return client.OAuthBearerToken{
		Value:      enc.EncodeToString(header) + "." + enc.EncodeToString(body) + ".",
		Principal:  u.principal,
		Expiry:     time.Unix(exp.Unix(), 0),
		Extensions: u.extensions,
	}
}

func (u *unsecuredJWT) provide(context.Context) (client.OAuthBearerToken, error) {
	return u.token(time.Now()), nil
}
