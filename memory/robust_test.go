package memory_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/memory"
)

// TestExportImportRoundTripsEveryCardTheyAccept (issue 37, item 2): a card
// an export writes is a card its import reads back, whatever its size: a
// 31 MB card used to export and then fail to import (bufio.Scanner: token
// too long). A card past the limits is refused by the export, naming it.
func TestExportImportRoundTripsEveryCardTheyAccept(t *testing.T) {
	for _, size := range []int{1 << 10, 1 << 20, 2 << 20, 20 << 20, 31 << 20} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			c := card("a", "r1", 1, strings.Repeat("x", size))
			var buf bytes.Buffer
			if err := memory.WriteCards(&buf, []clinic.Card{c}); err != nil {
				require.ErrorContains(t, err, "memory: write card a: field text: ")
				require.ErrorContains(t, err, "bytes of text; a text of a card takes at most 1048576 (1 MiB)")
				return
			}
			read, err := memory.ReadCards(&buf, "bank.jsonl")
			require.NoError(t, err, "what the export wrote imports")
			require.Equal(t, []clinic.Card{c}, read)
		})
	}
	line := `{"id":"a","kind":"success","text":"` + strings.Repeat("x", 17<<20) + `","bank":"success","run":"r1"}`
	_, err := memory.ReadCards(strings.NewReader(line+"\n"), "big.jsonl")
	require.EqualError(t, err, "big.jsonl:1: the line is longer than 16777216 bytes, the most a line may hold: bufio.Scanner: token too long")
}

// TestMemoryImportChecksEveryField (issue 37, item 5): run IDs, episode
// numbers, the order of creation and eviction, the kind and its bank, and
// the text's encoding are refused as the command line refuses them
// elsewhere, naming the file, the line and the field.
func TestMemoryImportChecksEveryField(t *testing.T) {
	const good = `{"id":"a","kind":"correction","text":"t","bank":"correction","run":"r1","pass":1,"stage":1,"created_episode":3}`
	for _, tc := range []struct{ name, from, to, want string }{
		{"a path for a run", `"run":"r1"`, `"run":"../../etc"`, `bank.jsonl:1: field run: run ID "../../etc" holds '.' at position 1`},
		{"a negative episode", `"created_episode":3`, `"created_episode":-4`, "bank.jsonl:1: field created_episode must be at least 0 and at most 1000000000, got -4"},
		{"an eviction before creation", `"created_episode":3`, `"created_episode":3,"evicted_episode":2`,
			"bank.jsonl:1: field evicted_episode: 2 is before created_episode 3: a card is evicted after it is written"},
		{"an unknown bank", `"bank":"correction"`, `"bank":"vault"`, `bank.jsonl:1: field bank: "vault", want "correction"`},
		{"an unknown kind", `"kind":"correction"`, `"kind":"poem"`, `bank.jsonl:1: field kind "poem": want one of success, correction, rule, advice, summary, memory, experience`},
		{"an ID with spaces", `"id":"a"`, `"id":"a b"`, `bank.jsonl:1: field id: "a b": want 1 to 128 printable ASCII characters without spaces`},
		{"not UTF-8", `"text":"t"`, "\"text\":\"\xff\"", "bank.jsonl:1: byte 39 of the line (0xFF) is not UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			line := strings.Replace(good, tc.from, tc.to, 1)
			require.NotEqual(t, good, line)
			_, err := memory.ReadCards(strings.NewReader(line+"\n"), "bank.jsonl")
			require.ErrorContains(t, err, tc.want)
		})
	}
	mem0 := strings.NewReplacer(`"kind":"correction"`, `"kind":"memory"`, `"bank":"correction"`, `"bank":"memory"`).Replace(good)
	_, err := memory.ReadCards(strings.NewReader(mem0+"\n"), "bank.jsonl")
	require.NoError(t, err, "every kind a run writes imports, Mem0's memory items too")
}
