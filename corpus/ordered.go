package corpus

import (
	"encoding/json"
	"fmt"
	"strings"
)

// node is a JSON value that keeps the key order of objects, so imported
// free-form findings stay in the order their authors wrote them.
type node struct {
	scalar string // strings, numbers and booleans as text
	list   []node
	keys   []string
	vals   []node
	kind   byte // 's' scalar, 'l' list, 'o' object, 'n' null
}

func (n *node) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	v, err := readNode(dec)
	if err != nil {
		return err
	}
	*n = v
	return nil
}

func readNode(dec *json.Decoder) (node, error) {
	tok, err := dec.Token()
	if err != nil {
		return node{}, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := node{kind: 'o'}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return node{}, err
				}
				v, err := readNode(dec)
				if err != nil {
					return node{}, err
				}
				n.keys = append(n.keys, kt.(string))
				n.vals = append(n.vals, v)
			}
			_, err := dec.Token()
			return n, err
		case '[':
			n := node{kind: 'l'}
			for dec.More() {
				v, err := readNode(dec)
				if err != nil {
					return node{}, err
				}
				n.list = append(n.list, v)
			}
			_, err := dec.Token()
			return n, err
		}
	case nil:
		return node{kind: 'n'}, nil
	case string:
		return node{kind: 's', scalar: t}, nil
	case json.Number:
		return node{kind: 's', scalar: t.String()}, nil
	case bool:
		return node{kind: 's', scalar: fmt.Sprint(t)}, nil
	}
	return node{}, fmt.Errorf("unexpected JSON token %v", tok)
}

func (n node) get(key string) (node, bool) {
	for i, k := range n.keys {
		if k == key {
			return n.vals[i], true
		}
	}
	return node{}, false
}

// text flattens a node to readable text: "Key: value; Key: value".
func (n node) text() string {
	switch n.kind {
	case 's':
		return strings.TrimSpace(n.scalar)
	case 'l':
		var parts []string
		for _, v := range n.list {
			if t := v.text(); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, "; ")
	case 'o':
		var parts []string
		for i, k := range n.keys {
			if t := n.vals[i].text(); t != "" {
				parts = append(parts, humanKey(k)+": "+t)
			}
		}
		return strings.Join(parts, "; ")
	}
	return ""
}

// leaves lists (path, value) pairs of every scalar below n.
func (n node) leaves(prefix string) [][2]string {
	switch n.kind {
	case 's':
		return [][2]string{{prefix, strings.TrimSpace(n.scalar)}}
	case 'l':
		var out [][2]string
		for _, v := range n.list {
			out = append(out, v.leaves(prefix)...)
		}
		return out
	case 'o':
		var out [][2]string
		for i, k := range n.keys {
			p := humanKey(k)
			if prefix != "" {
				p = prefix + " " + p
			}
			out = append(out, n.vals[i].leaves(p)...)
		}
		return out
	}
	return nil
}

// humanKey turns "Acetylcholine_Receptor_Antibodies" into "Acetylcholine Receptor Antibodies".
func humanKey(k string) string { return strings.TrimSpace(strings.ReplaceAll(k, "_", " ")) }
