package kafka

import (
	"fmt"
	"github.com/rollsafe/rollsafe/client"
	"strings"
)

// ConfigValue supports the following types: bool, int, string, any type with
// a String() method, and ConfigMap (only as "default.topic.config").
type ConfigValue interface{}

// ConfigMap is a map containing standard librdkafka configuration
// properties; the properties rollsafe understands are listed in the package
// documentation.
type ConfigMap map[string]ConfigValue

// topicPrefix marks a topic-level property set with SetKey.
const topicPrefix = "{topic}."

// defaultTopicConfig is the sub-map holding topic-level properties.
const defaultTopicConfig = "default.topic.config"

// SetKey sets configuration property key to value. A key prefixed with
// "{topic}." is stored in the "default.topic.config" sub-map, as
// librdkafka's Go client does.
func (m ConfigMap) SetKey(key string, value ConfigValue) error {
	if strings.HasPrefix(key, topicPrefix) {
		sub, ok := m[defaultTopicConfig].(ConfigMap)
		if !ok {
			sub = ConfigMap{}
			m[defaultTopicConfig] = sub
		}
		sub[strings.TrimPrefix(key, topicPrefix)] = value
		return nil
	}
	m[key] = value
	return nil
}

// Set implements flag.Set (command line argument parser) as a convenience
// for `-X key=value` config.
func (m ConfigMap) Set(kv string) error {
	k, v, ok := strings.Cut(kv, "=")
	if !ok {
		return newErrorFromString(ErrInvalidArg, "Expected key=value")
	}
	return m.SetKey(k, v)
}

// Get finds the given key in the ConfigMap and returns its value. If the key
// is not found defval is returned. If the key is found but the type does not
// match that of defval (unless nil) an ErrInvalidArg error is returned.
func (m ConfigMap) Get(key string, defval ConfigValue) (ConfigValue, error) {
	if strings.HasPrefix(key, topicPrefix) {
		sub, ok := m[defaultTopicConfig].(ConfigMap)
		if !ok {
			return defval, nil
		}
		return sub.Get(strings.TrimPrefix(key, topicPrefix), defval)
	}
	v, ok := m[key]
	if !ok {
		return defval, nil
	}
	if defval != nil && fmt.Sprintf("%T", defval) != fmt.Sprintf("%T", v) {
		return nil, newErrorFromString(ErrInvalidArg, fmt.Sprintf("%s expects type %T, not %T", key, defval, v))
	}
	return v, nil
}

// configString renders a value the way librdkafka's Go client hands it to
// librdkafka: bool, int, string, []ConfigValue (comma-joined) or a
// fmt.Stringer.
func configString(key string, v ConfigValue) (string, error) {
	switch x := v.(type) {
	case bool:
		if x {
			return "true", nil
		}
		return "false", nil
	case int:
		return fmt.Sprint(x), nil
	case string:
		return x, nil
	case []ConfigValue:
		parts := make([]string, len(x))
		for i, e := range x {
			s, err := configString(key, e)
			if err != nil {
				return "", err
			}
			parts[i] = s
		}
		return strings.Join(parts, ","), nil
	case fmt.Stringer:
		return x.String(), nil
	default:
		return "", Error{code: ErrInvalidArg, str: fmt.Sprintf("Invalid value type %T for key %s (expected string,bool,int,ConfigMap)", v, key), err: client.ErrInvalidConfig}
	}
}
