package experiments

import (
	"fmt"
	"math"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// wholeNumbers refuses a value that is not a whole number where the spec
// takes one: the YAML decoder truncates limit: 3.7 to 3 and would play three
// cases where the author wrote something else. It walks the document against
// t (the spec's type) and names the line and the key. Settings overrides are
// left to settings.Apply, which refuses a fraction for a whole-number key.
func wholeNumbers(n *yaml.Node, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case n.Kind == yaml.DocumentNode:
		for _, c := range n.Content {
			if err := wholeNumbers(c, t, path); err != nil {
				return err
			}
		}
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
			return fmt.Errorf("line %d: %s: want a whole number, got %s", n.Line, path, show(n))
		}
		var v int64
		if err := n.Decode(&v); err != nil {
			return fmt.Errorf("line %d: %s: %s is too large a number (want at most %d)", n.Line, path, n.Value, int64(math.MaxInt64))
		}
	case t.Kind() == reflect.Slice && n.Kind == yaml.SequenceNode:
		for i, c := range n.Content {
			if err := wholeNumbers(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case t.Kind() == reflect.Struct && n.Kind == yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i].Value
			f, ok := yamlField(t, key)
			if !ok {
				continue // the decoder names an unknown key
			}
			if err := wholeNumbers(n.Content[i+1], f.Type, strings.TrimPrefix(path+"."+key, ".")); err != nil {
				return err
			}
		}
	}
	return nil
}

// yamlField is the field of struct t that YAML key names: its yaml tag's
// name, or its name in lower case as the decoder reads an untagged field.
func yamlField(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		if name == key && f.IsExported() {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// show spells a node's value as the file wrote it.
func show(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return n.Value
	}
	return "a " + map[yaml.Kind]string{yaml.MappingNode: "mapping", yaml.SequenceNode: "list", yaml.AliasNode: "alias"}[n.Kind]
}
