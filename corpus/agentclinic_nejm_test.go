package corpus_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/corpus/corpustest"
	"github.com/clinevo/clinevo/textmatch"
)

// nejmLines are the NEJM sample's lines, each with its newline.
func nejmLines(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(filepath.Dir(corpustest.AgentClinicPath(t)), "agentclinic_nejm.jsonl"))
	require.NoError(t, err)
	lines := strings.SplitAfter(string(b), "\n")
	require.Len(t, lines, 15)
	lines[14] += "\n" // the file's last line has none
	return lines
}

// TestNEJMImport imports the 15 NEJM cases: the correct answer is the
// diagnosis and the four others its distractors; every case is marked as
// shown with an image; the question's text reaches neither the opening nor
// the facts (it holds the examination and the decisive finding), and its
// examination sentences are findings.
func TestNEJMImport(t *testing.T) {
	cases := corpustest.AgentClinicNEJM(t)
	require.Len(t, cases, 15)
	c := cases[0]
	require.Equal(t, "agentclinic-nejm-001", c.ID)
	require.Equal(t, "Exogenous ochronosis", c.Manager.Diagnosis.Name)
	require.Equal(t, []string{"Contact dermatitis", "Eczematous drug eruption", "Lichen planus pigmentosus", "Solar lentigenes"}, c.Manager.Distractors)
	require.Equal(t, "I am a 55-year-old woman who has noticed my skin darkening on my face over the past year.", c.Patient.OpeningComplaint)
	require.Equal(t, clinic.Demographics{Age: 55, Sex: "female"}, c.Patient.Demographics)
	require.Equal(t, clinic.Finding{System: "skin", Abnormal: true, Text: "On physical examination, bluish-brown patches with background erythema and telangiectasias " +
		"were observed on the cheeks, nasal bridge, and perioral region, with lesser involvement on the forehead (left)."}, c.Exam.Findings[0])
	require.Contains(t, c.Exam.Tests[len(c.Exam.Tests)-1].Result, "banana-shaped bodies")
	three := cases[2]
	require.Equal(t, "I am a 28-year-old woman. I have been experiencing a dry cough for the past 6 months.", three.Patient.OpeningComplaint)
	require.Equal(t, "respiratory", three.Exam.Findings[0].System)
	require.Contains(t, three.Exam.Findings[0].Text, "fine crackles")
	for _, c := range cases {
		require.True(t, strings.HasPrefix(c.Provenance.ImageURL, "https://csvc.nejm.org/"), c.ID)
		require.Len(t, c.Manager.Distractors, 4, c.ID)
		said := []string{c.Patient.OpeningComplaint}
		for _, f := range c.Patient.Facts {
			said = append(said, f.Text)
			require.NotRegexp(t, `(?i)patient actor|your role|remember,`, f.Text, "%s: an instruction to the actor is not history", c.ID)
		}
		all := textmatch.Normalize(strings.Join(said, " "))
		for _, w := range []string{"banana shaped", "hematoxylin", "biopsy results", "what is the most likely diagnosis"} {
			require.NotContains(t, all, w, c.ID)
		}
	}
}

// TestNEJMImageCases: --drop-image-cases leaves out every case with an
// image (all 15 of the sample have one), so a file of them alone imports
// nothing; a case without an image stays.
func TestNEJMImageCases(t *testing.T) {
	lines := nejmLines(t)
	all := strings.Join(lines, "")
	_, _, err := corpus.Library{}.Import("agentclinic", strings.NewReader(all), "nejm.jsonl", corpus.Options{DropImageCases: true})
	require.EqualError(t, err, "nejm.jsonl: no cases (0 lines skipped, 15 image cases dropped)")
	noImage := strings.Replace(lines[1], `"image_url": "https://csvc.nejm.org/ContentServer/images?id=IC20240118&width=1500&height=4000"`, `"image_url": ""`, 1)
	require.NotEqual(t, lines[1], noImage)
	cases, _, err := corpus.Library{}.Import("agentclinic", strings.NewReader(lines[0]+noImage+lines[2]), "nejm.jsonl", corpus.Options{DropImageCases: true})
	require.NoError(t, err)
	require.Len(t, cases, 1)
	require.Equal(t, "agentclinic-nejm-002", cases[0].ID)
	require.Empty(t, cases[0].Provenance.ImageURL)
}

// TestNEJMBadAnswers: a record without answers, or without exactly one
// correct answer, is an error naming the file, the line and the field;
// skip-invalid imports the others.
func TestNEJMBadAnswers(t *testing.T) {
	lines := nejmLines(t)
	second := lines[1]
	i := strings.Index(second, `"answers":`)
	require.Positive(t, i)
	for _, tc := range []struct{ name, line, want string }{
		{"no answers", second[:i] + `"answers": []}` + "\n", "nejm.jsonl:2: field answers: required: the answer options, one of them correct"},
		{"no answers field", strings.TrimRight(second[:i], ", ") + "}\n", "nejm.jsonl:2: field answers: required"},
		{"none correct", strings.ReplaceAll(second, `"correct": true`, `"correct": false`), "nejm.jsonl:2: field answers: no answer is marked correct"},
		{"two correct", strings.Replace(second, `"correct": false`, `"correct": true`, 1), `nejm.jsonl:2: field answers[4].correct: a second correct answer ("Actinomycosis" is already)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := lines[0] + tc.line + lines[2]
			_, _, err := corpus.Library{}.Import("agentclinic", strings.NewReader(in), "nejm.jsonl", corpus.Options{})
			require.ErrorContains(t, err, tc.want)
			cases, skipped, err := corpus.Library{}.Import("agentclinic", strings.NewReader(in), "nejm.jsonl", corpus.Options{SkipInvalid: true})
			require.NoError(t, err)
			require.Equal(t, []string{"agentclinic-nejm-001", "agentclinic-nejm-003"}, []string{cases[0].ID, cases[1].ID})
			require.Len(t, skipped, 1)
			require.Equal(t, 2, skipped[0].Line)
		})
	}
}
