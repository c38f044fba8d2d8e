package runner_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus/synth"
	"github.com/clinevo/clinevo/evolver"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/runner"
	"github.com/clinevo/clinevo/settings"
	"github.com/clinevo/clinevo/textmatch"
)

// contentWords counts the words of a text that are neither numbers nor units.
func contentWords(s string) int {
	n := 0
	for _, t := range textmatch.Tokens(s) {
		if len(t) > 2 && strings.IndexAny(t, "0123456789") < 0 {
			n++
		}
	}
	return n
}

var quantity = regexp.MustCompile(`\d+(\.\d+)?(/\d+)? ?(mg/L|x10\^9/L|g/dL|mmol/L|ng/L|ng/mL|U/L|mIU/L|pmol/L|mmHg|%)`)

// TestLeakScreenAttacksOnRealEpisodes plays cases without memory, then offers
// the screen cards carrying, beside the case's own key points, a two-thirds
// prefix, a reversal or a value with its unit of each abnormal result the
// episode did not reveal. Every one must be rejected. (The screen before this
// one, which rejected only verbatim copies of hidden strings of 12 characters
// or more, let every such attack through.)
func TestLeakScreenAttacksOnRealEpisodes(t *testing.T) {
	t.Parallel()
	all := synth.Generate(7)["stream"]
	tried := map[string]int{}
	for _, cond := range []string{"pyelonephritis", "pericarditis", "iron_deficiency", "sah", "dvt", "hypothyroidism", "t2dm", "appendicitis",
		"renal_colic", "pneumonia", "copd", "sciatica", "knee_oa", "mono", "biliary_colic", "hyperthyroidism", "bacterial_vaginosis"} {
		var c clinic.Case
		for _, cs := range all {
			if cs.Condition == cond {
				c = cs
				break
			}
		}
		tr, err := runner.Play(context.Background(), c, deps(t, false), runner.Meta{RunID: "r", EpisodeID: "e", Number: 1})
		require.NoError(t, err)
		truth := &grader.Key{Diagnosis: c.Manager.Diagnosis.Name, Evidence: c.Manager.Evidence, Management: c.Manager.Management}
		screen := evolver.NewScreen(settings.Default().Evolver, runner.Forbidden(c, tr.Events, revealedOf(t, c, tr)), truth)
		revealed := ""
		for _, ev := range tr.Events {
			revealed += ev.Reply + "\n"
		}
		for _, tv := range c.Exam.Tests {
			if !tv.Abnormal || strings.Contains(revealed, tv.Result) {
				continue
			}
			attacks := map[string]string{}
			// A two-thirds prefix of a result of fewer than four words is a word
			// or two ("Glucose +++, no "), which a card may well say.
			if words := strings.Fields(tv.Result); contentWords(tv.Result) >= 4 {
				attacks["prefix"] = tv.Result[:2*len(tv.Result)/3]
				for i, j := 0, len(words)-1; i < j; i, j = i+1, j-1 {
					words[i], words[j] = words[j], words[i]
				}
				attacks["reorder"] = strings.Join(words, " ")
			}
			if q := quantity.FindString(tv.Result); q != "" {
				attacks["number"] = "presentations like this often come with about " + q + " on testing"
			}
			for kind, text := range attacks {
				tried[kind]++
				card := clinic.Card{CardHint: clinic.CardHint{ID: kind, Text: "IF " + c.Patient.OpeningComplaint + " THEN consider " + c.Manager.Diagnosis.Name,
					Diagnosis: c.Manager.Diagnosis.Name, Evidence: append(append([]string(nil), c.Manager.Evidence...), text)}}
				kept, _ := evolver.ScreenCards([]clinic.Card{card}, screen)
				require.Empty(t, kept, "%s: %s attack on %q passes the screen: %q", c.ID, kind, tv.Result, text)
			}
		}
	}
	t.Logf("attacks tried: %v", tried)
	require.GreaterOrEqual(t, tried["prefix"], 15)
	require.GreaterOrEqual(t, tried["reorder"], 15)
	require.GreaterOrEqual(t, tried["number"], 10)
}

// revealedOf is what the doctor saw in a played episode.
func revealedOf(t *testing.T, c clinic.Case, tr clinic.Trace) string {
	t.Helper()
	env, err := deps(t, false).Start(c, tr.Events)
	require.NoError(t, err)
	return env.Revealed()
}
