package memory_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/clinevo/clinevo/memory"
)

// FuzzReadCards reads any file as a memory export: no panic, and what it
// accepts writes back and reads back the same (export and import round-trip
// every card they accept).
func FuzzReadCards(f *testing.F) {
	for _, s := range []string{
		`{"id":"a","kind":"correction","text":"t","bank":"correction","run":"r1","pass":1,"stage":1,"created_episode":3}`,
		`{"id":"b","kind":"memory","text":"m","bank":"memory","run":"q-E1","created_episode":1,"evicted_episode":4}`,
		`{"id":"a","kind":"rule","run":"../../etc"}`, `{"id":`, "[]", "\xef\xbb\xbf{}", "{\"id\":\"\xff\"}", `{"created_episode":-1}`, "",
		`{"id":"c","kind":"success","text":"x","bank":"success","run":"r","created_episode":5,"evicted_episode":2}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		cards, err := memory.ReadCards(strings.NewReader(in), "in.jsonl")
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := memory.WriteCards(&buf, cards); err != nil {
			t.Fatalf("accepted cards do not export: %v", err)
		}
		again, err := memory.ReadCards(&buf, "again.jsonl")
		if err != nil || len(again) != len(cards) {
			t.Fatalf("an export of accepted cards does not import: %v", err)
		}
	})
}
