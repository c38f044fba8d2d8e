package synth

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/textmatch"
)

func TestGPCorpusIsDeterministicBySeed(t *testing.T) {
	a, b, c := GenerateGP(7), GenerateGP(7), GenerateGP(8)
	for _, split := range GPSplits {
		require.Equal(t, jsonl(t, a[split]), jsonl(t, b[split]), split)
		require.NotEqual(t, jsonl(t, a[split]), jsonl(t, c[split]), split)
	}
}

// TestGPCorpusShape checks the GP corpus against GPAgentBench's design (§3,
// §5.1): every condition as a manage and a refer case, at least 30% refer in
// every stage and split (stratified: the same share in each stage), refer
// cases with a destination, an urgency, red flags and a treatment; the
// held-out split's openings never used in the stream.
func TestGPCorpusShape(t *testing.T) {
	gp := GenerateGP(7)
	require.Len(t, gp["gp"], GPStages*StageSize)
	require.Len(t, gp["gp-heldout"], GPHeldOutSize)
	seen := map[string]bool{}
	for _, c := range gp["gp"] {
		seen[textmatch.Normalize(c.Patient.OpeningComplaint)] = true
	}
	for _, split := range GPSplits {
		byStage := map[int][2]int{}
		variants := map[string]bool{}
		for _, c := range gp[split] {
			require.Equal(t, SourceGP, c.Provenance.Source)
			require.Contains(t, GPConditions(), c.Condition)
			label := c.Manager.ManagementLabel
			require.Contains(t, clinic.Pathways, label)
			variants[c.Condition+"/"+label] = true
			n := byStage[c.Meta.Stage]
			if label == clinic.PathwayRefer {
				n[1]++
				r := c.Manager.Referral
				require.True(t, r.Needed, c.ID)
				require.NotEmpty(t, r.Destination, c.ID)
				require.Contains(t, []string{"routine", "urgent", "emergency"}, r.Urgency, c.ID)
				require.NotEmpty(t, r.RedFlags, c.ID)
			} else {
				require.False(t, c.Manager.Referral.Needed, c.ID)
			}
			n[0]++
			byStage[c.Meta.Stage] = n
			require.NotEmpty(t, c.Manager.Treatment, c.ID)
			p := c.Patient.Persona
			require.Contains(t, []string{"basic", "intermediate", "advanced"}, p.Language)
			require.Contains(t, []string{"high", "low"}, p.Recall)
			require.Contains(t, clinic.Disorientations, p.Disorientation)
			if split == "gp-heldout" {
				require.False(t, seen[textmatch.Normalize(c.Patient.OpeningComplaint)], "%s: a stream opening", c.ID)
			}
		}
		require.Len(t, variants, 2*len(gpVariants), "%s: every condition as a manage and a refer case", split)
		refers := 0
		for k, c := range gp[split][:StageSize] {
			if c.Manager.ManagementLabel == clinic.PathwayRefer {
				refers++
			}
			want := float64(k+1) * 0.42
			require.InDelta(t, want, float64(refers), 0.5, "%s: the first %d cases are stratified too", split, k+1)
		}
		for stage, n := range byStage {
			share := float64(n[1]) / float64(n[0])
			require.GreaterOrEqual(t, share, 0.3, "%s stage %d", split, stage)
			require.InDelta(t, 0.42, share, 0.005, "%s stage %d: stratified", split, stage)
		}
	}
}

// negation marks a sentence that denies what it mentions (as the built-in
// doctor reads it).
var negation = regexp.MustCompile(`(?i)\b(no|not|never|none|denies|without any|nothing)\b|n't\b|\bnormal\b`)

// TestGPRedFlags checks the red flags as the built-in roles read them: each
// red flag of a refer case is shown by one affirmed sentence of the case (a
// fact, finding or result holding at least three quarters of its words); no
// affirmed sentence of a manage case of the same condition shows one.
func TestGPRedFlags(t *testing.T) {
	sentences := func(c clinic.Case) []map[string]bool {
		var texts []string
		for _, f := range c.Patient.Facts {
			texts = append(texts, f.Text)
		}
		for _, f := range c.Exam.Findings {
			texts = append(texts, f.Text)
		}
		for _, r := range c.Exam.Tests {
			texts = append(texts, r.Result)
		}
		var out []map[string]bool
		for _, t := range texts {
			for _, s := range regexp.MustCompile(`[.;!?]\s`).Split(t+" ", -1) {
				if strings.TrimSpace(s) != "" && !negation.MatchString(s) {
					out = append(out, textmatch.Set(s))
				}
			}
		}
		return out
	}
	shows := func(ss []map[string]bool, flag string) bool {
		for _, s := range ss {
			if textmatch.Coverage(textmatch.Set(flag), s) >= 0.75 {
				return true
			}
		}
		return false
	}
	flags := map[string][]string{}
	for _, v := range gpVariants {
		flags[v.key] = v.redFlags
	}
	for _, c := range GenerateGP(7)["gp"] {
		ss := sentences(c)
		for _, f := range flags[c.Condition] {
			if (c.Manager.ManagementLabel == clinic.PathwayRefer) != shows(ss, f) {
				t.Errorf("%s (%s, %s): red flag %q", c.ID, c.Condition, c.Manager.ManagementLabel, f)
			}
		}
	}
}

func TestGPVariantTable(t *testing.T) {
	keys := map[string]bool{}
	for _, v := range gpVariants {
		require.False(t, keys[v.key], "one row per condition: %s", v.key)
		keys[v.key] = true
		cd := conditionByKey(v.key)
		require.NotEmpty(t, v.flags, v.key)
		require.NotEmpty(t, v.redFlags, v.key)
		require.NotEmpty(t, v.tx, v.key)
		dest, urgency := split2(v.ref)
		require.NotEmpty(t, dest, v.key)
		require.Contains(t, []string{"routine", "urgent", "emergency"}, urgency, v.key)
		for _, d := range list(v.drop) {
			found := false
			for _, f := range append(append([]string(nil), cd.pos...), cd.neg...) {
				found = found || strings.Contains(strings.ToLower(f), strings.ToLower(d))
			}
			require.True(t, found, "%s: drop %q matches no fact", v.key, d)
			for _, s := range synonyms {
				require.NotContains(t, d, s[0], "%s: drop %q would miss a varied fact", v.key, d)
			}
		}
		for _, f := range v.flags {
			topic, _ := split2(f)
			require.Contains(t, clinic.Topics, topic, v.key)
		}
	}
}
