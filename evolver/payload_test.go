package evolver_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/evolver"
	"github.com/clinevo/clinevo/settings"
)

// TestRuleBookStaysFarFromPayloadLimits (issue 37, item 2): the rule book
// travels in workflow histories (every episode's input, every learning
// step's output), so no rule may grow with a case's text: a presentation of
// one pasted 60 KB "word" gives context words without it, and a model's
// edit longer than MaxRuleText is refused, named. A full book of B_P rules
// at the largest budget stays under 200 KB: far from Temporal's 2 MiB.
func TestRuleBookStaysFarFromPayloadLimits(t *testing.T) {
	blob := strings.Repeat("x", 60_000)
	words := evolver.ContextWords("chest " + blob + " tight on exertion")
	require.Equal(t, []string{"chest", "tight", "exertion"}, words, "the blob is no context word")

	cfg := settings.Default().Evolver
	screen := evolver.NewScreen(cfg, evolver.Forbidden{}, nil)
	long := "Always ask about the onset " + strings.Repeat("and its story ", 200)
	out, _, skipped := evolver.ApplyEdits(nil, []evolver.Edit{{Op: evolver.OpAdd, Text: long}}, 1, cfg, screen)
	require.Empty(t, out)
	require.Equal(t, []string{"add rejected: 2827 bytes of rule; a rule takes at most 1000"}, skipped)

	cfg.RuleBudget = settings.RuleBudgetRange.Max
	var rules []clinic.Rule
	for i := range cfg.RuleBudget + 5 {
		// Rules that share no word, so that none is the same rule as
		// another (the book merges those), each near the longest allowed.
		w := fmt.Sprintf("step%d ", i)
		text := strings.TrimSpace(strings.Repeat(w, (evolver.MaxRuleText-1)/len(w)))
		rules, _, _ = evolver.ApplyEdits(rules, []evolver.Edit{{Op: evolver.OpAdd, Text: text}}, i+1, cfg, evolver.NewScreen(cfg, evolver.Forbidden{}, nil))
	}
	size := 0
	for _, r := range rules {
		size += len(r.Text)
	}
	require.Len(t, rules, cfg.RuleBudget)
	require.LessOrEqual(t, size, 200_000, "200 rules of at most 1,000 bytes")
}
