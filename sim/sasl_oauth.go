package sim

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"
)

// MechOAuthBearer is SASL OAUTHBEARER (RFC 7628, KIP-255).
const MechOAuthBearer = "OAUTHBEARER"

// SASLOAuthBearer enables SASL OAUTHBEARER with what Kafka's brokers use
// by default, the unsecured JWS validator: a token is accepted when its
// header says "alg":"none", its signature part is empty, its claims hold
// a non-blank string "sub" (the principal) and a numeric "exp" in the
// future, and an "iat", if present, is a number not in the future and
// before "exp". Every SASL extension is accepted. A refused token is
// answered, as Kafka does, with the error JSON {"status":"invalid_token"}
// as a challenge; after the client's 0x01 the exchange fails with
// SASL_AUTHENTICATION_FAILED carrying that JSON. The session ends when the
// token expires (or after SessionLifetime, if shorter), and the client may
// re-authenticate with a new token for the same principal.
// UnsecuredJWT makes such tokens.
func SASLOAuthBearer() Option {
	return func(c *config) { c.sec.oauth = true }
}

var (
	// Kafka's grammar of the client's first message (RFC 7628 section 3.1
	// as OAuthBearerClientInitialResponse reads it).
	oauthFirstRE   = regexp.MustCompile(`^n,(?:a=((?:[\x01-\x2B\x2D-\x3C\x3E-\x7F]|=2C|=3D)+))?,\x01((?:[A-Za-z]+=[\x21-\x7E \t\r\n]+\x01)*)\x01$`)
	oauthAuthRE    = regexp.MustCompile(`^(\w+) +([-_.a-zA-Z0-9]+)$`)
	oauthKVRE      = regexp.MustCompile(`^([A-Za-z]+)=([\x21-\x7E \t\r\n]+)$`)
	oauthInvalidTk = []byte(`{"status":"invalid_token"}`)
)

// oauthExchange is the server side of one OAUTHBEARER authentication.
type oauthExchange struct {
	now        func() time.Time
	stage      int // 0: first message; 1: error sent, awaiting 0x01; 2: done
	sub        string
	exp        time.Time
	extensions map[string]string
	reason     string // why the token was refused (logged, never sent)
}

func (o *oauthExchange) principal() string { return o.sub }

// expiry is the accepted token's expiry: the session ends then.
func (o *oauthExchange) expiry() time.Time { return o.exp }

func (o *oauthExchange) step(in []byte) ([]byte, bool, error) {
	switch o.stage {
	case 0:
		o.stage = 1
		tok, authz, ext, err := parseOAuthFirst(in)
		if err != nil {
			o.stage = 2
			return nil, false, fmt.Errorf("%w: OAUTHBEARER: %v", ErrAuthentication, err)
		}
		sub, exp, err := validateUnsecuredJWS(tok, o.now())
		if err != nil {
			o.reason = err.Error()
			return oauthInvalidTk, false, nil
		}
		if authz != "" && authz != sub {
			o.stage = 2
			return nil, false, fmt.Errorf("%w: OAUTHBEARER: authorization id differs from the token's principal", ErrAuthentication)
		}
		o.sub, o.exp, o.extensions, o.stage = sub, exp, ext, 2
		return nil, true, nil
	case 1:
		o.stage = 2
		if !bytes.Equal(in, []byte{0x01}) {
			return nil, false, fmt.Errorf("%w: OAUTHBEARER: the client did not acknowledge the error with 0x01", ErrAuthentication)
		}
		return nil, false, &oauthRejected{reason: o.reason}
	}
	return nil, false, fmt.Errorf("%w: OAUTHBEARER: message after completion", ErrAuthentication)
}

// oauthRejected ends an exchange whose token was refused: the broker's
// error message is the error JSON sent before.
type oauthRejected struct{ reason string }

func (e *oauthRejected) Error() string {
	return fmt.Sprintf("%v: OAUTHBEARER: invalid token: %s", ErrAuthentication, e.reason)
}
func (e *oauthRejected) Unwrap() error { return ErrAuthentication }

// clientMessage is what the client is told.
func (e *oauthRejected) clientMessage() string { return string(oauthInvalidTk) }

// parseOAuthFirst reads "n,[a=authzid]," 0x01 (key=value 0x01)* 0x01 with
// one "auth=Bearer <token>" pair; the other pairs are extensions.
func parseOAuthFirst(in []byte) (token, authz string, ext map[string]string, err error) {
	m := oauthFirstRE.FindSubmatch(in)
	if m == nil {
		return "", "", nil, fmt.Errorf("invalid client first message")
	}
	authz = strings.NewReplacer("=2C", ",", "=3D", "=").Replace(string(m[1]))
	ext = map[string]string{}
	for _, kv := range strings.Split(strings.TrimSuffix(string(m[2]), "\x01"), "\x01") {
		if kv == "" {
			continue
		}
		p := oauthKVRE.FindStringSubmatch(kv)
		if p == nil {
			return "", "", nil, fmt.Errorf("invalid key-value pair")
		}
		ext[p[1]] = p[2]
	}
	auth, ok := ext["auth"]
	if !ok {
		return "", "", nil, fmt.Errorf("no auth in the client first message")
	}
	delete(ext, "auth")
	a := oauthAuthRE.FindStringSubmatch(auth)
	if a == nil {
		return "", "", nil, fmt.Errorf("invalid auth format")
	}
	if !strings.EqualFold(a[1], "bearer") {
		return "", "", nil, fmt.Errorf("invalid scheme %q", a[1])
	}
	return a[2], authz, ext, nil
}

// validateUnsecuredJWS checks tok as Kafka's unsecured validator does
// (no clock skew allowed, no required scope) and returns its principal and
// expiry.
func validateUnsecuredJWS(tok string, now time.Time) (string, time.Time, error) {
	if strings.Contains(tok, "..") {
		return "", time.Time{}, fmt.Errorf("malformed compact serialization contains '..'")
	}
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return "", time.Time{}, fmt.Errorf("an unsecured JWS has 3 dot-separated parts, not %d", len(parts))
	}
	var header, claims map[string]any
	if err := jwsDecode(parts[0], &header); err != nil {
		return "", time.Time{}, fmt.Errorf("header: %v", err)
	}
	if err := jwsDecode(parts[1], &claims); err != nil {
		return "", time.Time{}, fmt.Errorf("claims: %v", err)
	}
	if alg, _ := header["alg"].(string); alg != "none" {
		return "", time.Time{}, fmt.Errorf("an unsecured JWS must have 'none' for an algorithm")
	}
	if parts[2] != "" {
		return "", time.Time{}, fmt.Errorf("an unsecured JWS must not carry a signature")
	}
	exp, ok := claims["exp"].(float64)
	if !ok {
		return "", time.Time{}, fmt.Errorf("no numeric expiration time (exp)")
	}
	sub, ok := claims["sub"].(string)
	if !ok || strings.TrimSpace(sub) == "" {
		return "", time.Time{}, fmt.Errorf("no principal name in claim sub")
	}
	nowMs := now.UnixMilli()
	expMs := int64(math.Round(exp * 1000))
	if v, present := claims["iat"]; present {
		iat, ok := v.(float64)
		if !ok {
			return "", time.Time{}, fmt.Errorf("iat is not a number")
		}
		iatMs := int64(math.Round(iat * 1000))
		if iatMs > nowMs {
			return "", time.Time{}, fmt.Errorf("issued in the future")
		}
		if iatMs >= expMs {
			return "", time.Time{}, fmt.Errorf("issued at or after its expiration")
		}
	}
	if nowMs >= expMs {
		return "", time.Time{}, fmt.Errorf("expired")
	}
	return sub, time.UnixMilli(expMs), nil
}

func jwsDecode(part string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(part, "="))
	if err != nil {
		return fmt.Errorf("malformed base64url")
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("malformed JSON")
	}
	return nil
}
