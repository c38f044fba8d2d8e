package corpus

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Node is a JSON value that keeps the key order of objects, so imported
// free-form findings stay in the order their authors wrote them.
type Node struct {
	scalar string // strings, numbers and booleans as text
	list   []Node
	keys   []string
	vals   []Node
	kind   byte // 's' scalar, 'l' list, 'o' object, 'n' null
}

// UnmarshalJSON reads a JSON value keeping the order of object keys.
func (n *Node) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	v, err := readNode(dec)
	if err != nil {
		return err
	}
	*n = v
	return nil
}

func readNode(dec *json.Decoder) (Node, error) {
	tok, err := dec.Token()
	if err != nil {
		return Node{}, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := Node{kind: 'o'}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return Node{}, err
				}
				v, err := readNode(dec)
				if err != nil {
					return Node{}, err
				}
				n.keys = append(n.keys, kt.(string))
				n.vals = append(n.vals, v)
			}
			_, err := dec.Token()
			return n, err
		case '[':
			n := Node{kind: 'l'}
			for dec.More() {
				v, err := readNode(dec)
				if err != nil {
					return Node{}, err
				}
				n.list = append(n.list, v)
			}
			_, err := dec.Token()
			return n, err
		}
	case nil:
		return Node{kind: 'n'}, nil
	case string:
		return Node{kind: 's', scalar: t}, nil
	case json.Number:
		return Node{kind: 's', scalar: t.String()}, nil
	case bool:
		return Node{kind: 's', scalar: fmt.Sprint(t)}, nil
	}
	return Node{}, fmt.Errorf("unexpected JSON token %v", tok)
}

func (n Node) Get(key string) (Node, bool) {
	for i, k := range n.keys {
		if k == key {
			return n.vals[i], true
		}
	}
	return Node{}, false
}

// text flattens a Node to readable text: "Key: value; Key: value".
func (n Node) Text() string {
	switch n.kind {
	case 's':
		return strings.TrimSpace(n.scalar)
	case 'l':
		var parts []string
		for _, v := range n.list {
			if t := v.Text(); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, "; ")
	case 'o':
		var parts []string
		for i, k := range n.keys {
			if t := n.vals[i].Text(); t != "" {
				parts = append(parts, HumanKey(k)+": "+t)
			}
		}
		return strings.Join(parts, "; ")
	}
	return ""
}

// leaves lists (path, value) pairs of every scalar below n.
func (n Node) Leaves(prefix string) [][2]string {
	switch n.kind {
	case 's':
		return [][2]string{{prefix, strings.TrimSpace(n.scalar)}}
	case 'l':
		var out [][2]string
		for _, v := range n.list {
			out = append(out, v.Leaves(prefix)...)
		}
		return out
	case 'o':
		var out [][2]string
		for i, k := range n.keys {
			p := HumanKey(k)
			if prefix != "" {
				p = prefix + " " + p
			}
			out = append(out, n.vals[i].Leaves(p)...)
		}
		return out
	}
	return nil
}

// humanKey turns "Acetylcholine_Receptor_Antibodies" into "Acetylcholine Receptor Antibodies".
func HumanKey(k string) string { return strings.TrimSpace(strings.ReplaceAll(k, "_", " ")) }

// IsObject reports whether n is a JSON object.
func (n Node) IsObject() bool { return n.kind == 'o' }

// Scalar is n's text when it is a string, number or boolean.
func (n Node) Scalar() (string, bool) { return n.scalar, n.kind == 's' }

// Members are an object's keys and values, in order.
func (n Node) Members() ([]string, []Node) { return n.keys, n.vals }
