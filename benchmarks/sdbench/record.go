package sdbench

import (
	"slices"
	"strings"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
	"github.com/clinevo/clinevo/textmatch"
)

// recordSentences are the sentences of a record's text, list markers
// dropped.
func recordSentences(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		out = append(out, corpus.Sentences(strings.TrimPrefix(strings.TrimSpace(line), "- "))...)
	}
	return out
}

// bodyRegions are the regions and organs a test may be of, each with the
// words that name it (clinevo's list): what lets the built-in gatekeeper see
// that a test is of a part the record describes.
var bodyRegions = [][]string{
	{"head", "brain", "cranial", "skull"},
	{"neck"},
	{"throat", "pharynx", "pharyngeal", "tonsil", "tonsillar", "peritonsillar", "oropharynx", "larynx", "laryngeal"},
	{"chest", "thorax", "thoracic", "lung", "lungs", "pulmonary", "pleural", "respiratory"},
	{"heart", "cardiac", "cardiovascular", "valve", "valves", "mitral", "aortic", "tricuspid"},
	{"abdomen", "abdominal"},
	{"liver", "hepatic"},
	{"gallbladder", "biliary"},
	{"pancreas", "pancreatic"},
	{"kidney", "kidneys", "renal"},
	{"bladder", "urinary"},
	{"pelvis", "pelvic"},
	{"uterus", "uterine", "endometrial"},
	{"ovary", "ovaries", "ovarian", "adnexal"},
	{"prostate"},
	{"testis", "testes", "testicular", "scrotal", "scrotum"},
	{"breast", "breasts"},
	{"thyroid"},
	{"spine", "spinal", "lumbar"},
	{"knee", "knees"},
	{"hip", "hips"},
	{"shoulder", "shoulders"},
	{"leg", "legs", "calf"},
	{"skin", "cutaneous"},
	{"lymph", "node", "nodes", "lymphadenopathy"},
	{"eye", "eyes", "orbit", "orbital", "ocular", "fundus"},
	{"sinus", "sinuses", "nasal"},
	{"colon", "bowel", "rectal", "rectum"},
	{"stomach", "gastric"},
	{"esophagus", "oesophagus", "esophageal", "oesophageal"},
	{"joint", "joints"},
	{"muscle", "muscles"},
	{"bone", "bones", "marrow"},
}

// regionsOf are the indexes of the regions text names.
func regionsOf(text string) []int {
	words := strings.Fields(textmatch.Normalize(text))
	var out []int
	for i, names := range bodyRegions {
		if slices.ContainsFunc(names, func(n string) bool { return slices.Contains(words, n) }) {
			out = append(out, i)
		}
	}
	return out
}

// describedBy are the examination findings of c about any of the regions
// (the vital signs name none), as "system: text" where a system places them.
func describedBy(c *clinic.Case, regions []int) []string {
	var out []string
	for _, f := range c.Exam.Findings {
		if f.System == "vitals" {
			continue
		}
		for _, r := range regionsOf(f.System + " " + f.Text) {
			if slices.Contains(regions, r) {
				out = append(out, strings.TrimPrefix(f.System+": ", "general: ")+f.Text)
				break
			}
		}
	}
	return out
}

// regionTested reports whether c records a result of another test of one of
// the regions: a made-up result for the region could contradict it.
func regionTested(c *clinic.Case, regions []int, test string) bool {
	for _, tv := range c.Exam.Tests {
		if tv.Name == test {
			continue
		}
		for _, r := range regionsOf(tv.Name) {
			if slices.Contains(regions, r) {
				return true
			}
		}
	}
	return false
}
