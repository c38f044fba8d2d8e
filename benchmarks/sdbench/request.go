package sdbench

import (
	"regexp"
	"strings"

	"github.com/clinevo/clinevo/textmatch"
)

// The gatekeeper "explicitly refuses to provide diagnostic impressions"
// (Nori et al. 2025, §2): a request for this patient's diagnosis is refused
// without asking it. A question about diagnoses of the past, of the family
// or of tests ("Has she ever been diagnosed with diabetes?", "Were any
// diagnostic tests done before?") is history, and goes to the gatekeeper.
// The cues are clinevo's.

// diagnosisAsks are the ways a question asks for the answer itself.
var diagnosisAsks = regexp.MustCompile(`\b(` +
	`diagnosis|diagnoses|` + // the noun: "what is the diagnosis", "tell me the diagnosis"
	`(what|whats) (is )?(wrong|causing|the cause|the underlying cause|the problem)|` +
	`your (impression|opinion|assessment|differential|verdict|best guess)|` +
	`what do you think (it|this|is)|` +
	`what (disease|condition|illness|disorder|syndrome)s? (does|do|is|has|have) (she|he|they|the patient|this patient|the child|i|it)|` +
	`(what|which) (disease|condition|illness|disorder|syndrome) (is|explains) (this|it|causing)|` +
	`(the|correct|right) answer` +
	`)\b`)

// historyCues place a question about diagnoses in the patient's (or the
// family's) past.
var historyCues = regexp.MustCompile(`\b(ever|before|previous|previously|prior|past|history|earlier|ago|known|existing|chronic|childhood|as a child|family|relative|relatives|mother|father|sister|brother|parents|siblings|years|last year|other doctors?|another doctor|referral letter)\b`)

// AsksForDiagnosis reports whether a question asks the gatekeeper for this
// patient's diagnosis rather than for a finding.
func AsksForDiagnosis(q string) bool {
	n := strings.ReplaceAll(textmatch.Normalize(strings.ReplaceAll(q, "'", "")), "  ", " ")
	return diagnosisAsks.MatchString(n) && !historyCues.MatchString(n)
}
