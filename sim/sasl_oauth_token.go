package sim

import (
	"encoding/base64"
	"encoding/json"
	"time"
)

// UnsecuredJWT returns an unsecured JWS (RFC 7515 with "alg":"none" and an
// empty signature) whose claims are sub, iat and exp (seconds) plus
// extra: the kind of token Kafka's unsecured OAUTHBEARER validator, and
// the simulator's (SASLOAuthBearer), accept while exp is in the future.
// A zero iat or exp leaves that claim out. For tests only: anyone can
// make one.
func UnsecuredJWT(sub string, iat, exp time.Time, extra map[string]any) string {
	claims := map[string]any{}
	for k, v := range extra {
		claims[k] = v
	}
	if sub != "" {
		claims["sub"] = sub
	}
	if !iat.IsZero() {
		claims["iat"] = float64(iat.UnixMilli()) / 1000
	}
	if !exp.IsZero() {
		claims["exp"] = float64(exp.UnixMilli()) / 1000
	}
	return jwsPart(map[string]any{"alg": "none"}) + "." + jwsPart(claims) + "."
}

func jwsPart(v map[string]any) string {
	b, _ := json.Marshal(v) // maps of strings, numbers and lists cannot fail
	return base64.RawURLEncoding.EncodeToString(b)
}
