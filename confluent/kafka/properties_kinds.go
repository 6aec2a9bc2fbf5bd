package kafka

import (
	"fmt"
	"strings"
)

// The setters of the properties that change nothing here (reported) or
// are refused: each checks the value as librdkafka does, with its error
// texts, then notes or refuses.

// setter is a property's set function.
type setter = func(s *settings, name string, v ConfigValue) error

// noted is the CONFWARN text of an accepted property without effect.
func (s *settings) noted(name, value, why string) {
	s.note("%q=%q accepted and ignored: %s", name, value, why)
}

// reportString accepts any string.
func reportString(why string) setter {
	return func(s *settings, n string, v ConfigValue) error {
		str, err := configString(n, v)
		if err == nil {
			s.noted(n, str, why)
		}
		return err
	}
}

// reportInt accepts an integer in lo..hi.
func reportInt(lo, hi int, why string) setter {
	return func(s *settings, n string, v ConfigValue) error {
		i, err := intValue(n, v, lo, hi)
		if err == nil {
			s.noted(n, fmt.Sprint(i), why)
		}
		return err
	}
}

// reportBool accepts a bool.
func reportBool(why string) setter {
	return func(s *settings, n string, v ConfigValue) error {
		b, err := boolValue(n, v)
		if err == nil {
			s.noted(n, fmt.Sprint(b), why)
		}
		return err
	}
}

// reportEnum accepts one of values (case-insensitive).
func reportEnum(values []string, why string) setter {
	return func(s *settings, n string, v ConfigValue) error {
		e, err := enumValue(n, v, values)
		if err == nil {
			s.noted(n, e, why)
		}
		return err
	}
}

// reportFlags accepts a comma-separated list of values (librdkafka's CSV
// flags, each optionally prefixed + or -).
func reportFlags(values []string, why string) setter {
	return func(s *settings, n string, v ConfigValue) error {
		str, err := flagsValue(n, v, values)
		if err == nil {
			s.noted(n, str, why)
		}
		return err
	}
}

// consumer is a consumer-only (C) property: librdkafka's producer checks
// its value, accepts it and logs that it ignores it; so does this one, with
// librdkafka's words. check is the value check (nil: any string).
func consumer(check func(name string, v ConfigValue) error) setter {
	return func(s *settings, n string, v ConfigValue) error {
		if check != nil {
			if err := check(n, v); err != nil {
				return err
			}
		} else if _, err := configString(n, v); err != nil {
			return err
		}
		s.note("Configuration property %s is a consumer property and will be ignored by this producer instance", n)
		return nil
	}
}

func intCheck(lo, hi int) func(string, ConfigValue) error {
	return func(n string, v ConfigValue) error { _, err := intValue(n, v, lo, hi); return err }
}

func boolCheck(n string, v ConfigValue) error { _, err := boolValue(n, v); return err }

func enumCheck(values ...string) func(string, ConfigValue) error {
	return func(n string, v ConfigValue) error { _, err := enumValue(n, v, values); return err }
}

// refuse refuses the property whatever its value, saying why.
func refuse(why string) setter {
	return func(s *settings, n string, v ConfigValue) error {
		if _, err := configString(n, v); err != nil {
			return err
		}
		return unsupported(fmt.Sprintf("Configuration property %q is not supported by rollsafe: %s", n, why))
	}
}

// dedicated is a property librdkafka sets only through its own C function
// (a callback or pointer): it refuses it from a configuration map, and
// confluent-kafka-go has no way to set it either.
func dedicated(s *settings, n string, v ConfigValue) error {
	return unsupported(fmt.Sprintf("Property %q must be set through dedicated .._set_..() function", n))
}

// internal is a property librdkafka never lets be set.
func internal(s *settings, n string, v ConfigValue) error {
	return unsupported(fmt.Sprintf("Internal property %q not settable", n))
}

// enumValue is librdkafka's check of an enum property: one of values,
// case-insensitive; the canonical spelling is returned.
func enumValue(name string, v ConfigValue, values []string) (string, error) {
	str, err := configString(name, v)
	if err != nil {
		return "", err
	}
	t := strings.TrimSpace(str)
	for _, e := range values {
		if strings.EqualFold(e, t) {
			return e, nil
		}
	}
	return "", invalid(name, str, "want "+strings.Join(values, ", "))
}

// flagsValue is librdkafka's check of a CSV flags property.
func flagsValue(name string, v ConfigValue, values []string) (string, error) {
	str, err := configString(name, v)
	if err != nil {
		return "", err
	}
	for _, f := range strings.Split(str, ",") {
		f = strings.TrimLeft(strings.TrimSpace(f), "+-")
		if f == "" {
			continue
		}
		if _, err := enumValue(name, f, values); err != nil {
			return "", invalid(name, f, "want a comma-separated list of "+strings.Join(values, ", "))
		}
	}
	return str, nil
}

// kerberos is a sasl.kerberos.* property: used by GSSAPI only, which
// rollsafe does not have (sasl.mechanisms=GSSAPI is refused).
func kerberos(s *settings, n string, v ConfigValue) error {
	str, err := configString(n, v)
	if err != nil {
		return err
	}
	s.saslSet = append(s.saslSet, n)
	s.noted(n, str, "used only by the GSSAPI (Kerberos) mechanism, which rollsafe does not have")
	return nil
}

// oidc is a property of sasl.oauthbearer.method=oidc, which rollsafe
// refuses: with the default method librdkafka ignores it too.
func oidc(check func(string, ConfigValue) error) setter {
	return func(s *settings, n string, v ConfigValue) error {
		str, err := configString(n, v)
		if err != nil {
			return err
		}
		if check != nil {
			if err := check(n, v); err != nil {
				return err
			}
		}
		s.saslSet = append(s.saslSet, n)
		s.noted(n, str, "used only by sasl.oauthbearer.method=oidc, which rollsafe does not have")
		return nil
	}
}

// allFeatures are librdkafka's builtin.features values; missingFeatures
// those rollsafe lacks, with why.
var (
	allFeatures     = []string{"gzip", "snappy", "ssl", "sasl", "regex", "lz4", "sasl_gssapi", "sasl_plain", "sasl_scram", "plugins", "zstd", "sasl_oauthbearer", "http", "oidc"}
	missingFeatures = map[string]string{
		"regex":       "rollsafe has no regular-expression topic matching (it has no consumer)",
		"sasl_gssapi": "rollsafe has no GSSAPI (Kerberos)",
		"plugins":     "rollsafe cannot load librdkafka plugins",
		"http":        "rollsafe has no HTTP client (no OIDC token retrieval)",
		"oidc":        "rollsafe has no OIDC token retrieval (sasl.oauthbearer.method=oidc)",
	}
)
