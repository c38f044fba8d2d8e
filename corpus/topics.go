package corpus

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/clinevo/clinevo/clinic"
)

// topicCues are the words that tag an imported history sentence with a topic.
// A sentence may carry several topics; one with none is "associated".
var topicCues = []struct {
	topic string
	cues  []string
}{
	{clinic.TopicOnset, []string{"started", "began", "onset", "sudden", " ago", "since", "first noticed", "new-onset", "appeared", "history of", "-day", "-week", "-month", "-year"}},
	{clinic.TopicDuration, []string{"history of", "for the past", "for the last", "lasting", "weeks", "months", "days", "hours", "years", "duration", "persistent"}},
	{clinic.TopicSeverity, []string{"severe", "worst", "mild", "intense", "excruciating", "significant", "unable to"}},
	{clinic.TopicTriggers, []string{"worse", "worsen", "after", "triggered", "improve", "relieved", "exacerbat", "when ", "aggravat", "better"}},
	{clinic.TopicLocation, []string{"located", "radiat", "left", "right", "upper", "lower", "abdomen", "chest", "back"}},
	{clinic.TopicCharacter, []string{"sharp", "dull", "burning", "throbbing", "aching", "cramp", "pressure", "describes"}},
	{clinic.TopicMedications, []string{"medication", "taking", "prescribed", " mg", "therapy", "treated with", "treatment", "drug", "pill", "inhaler", "natalizumab"}},
	{clinic.TopicAllergies, []string{"allerg"}},
	{clinic.TopicFamily, []string{"family", "mother", "father", "sibling", "brother", "sister", "parents", "grandm", "grandf", "hereditary"}},
	{clinic.TopicSocial, []string{"smok", "alcohol", "drink", "works", "occupation", "travel", "sexual", "lives", "job", "student", "married", "diet", "exercise", "drug use", "tobacco"}},
}

// InferTopics tags a history sentence by cue words; the fallback is the
// importer's default topic for that section.
func InferTopics(text, fallback string) []string {
	t := " " + strings.ToLower(text) + " "
	var out []string
	for _, tc := range topicCues {
		for _, c := range tc.cues {
			if strings.Contains(t, c) {
				out = append(out, tc.topic)
				break
			}
		}
	}
	if fallback != "" && !slices.Contains(out, fallback) {
		out = append([]string{fallback}, out...)
	}
	if len(out) == 0 {
		out = []string{clinic.TopicAssociated}
	}
	return out
}

var sentenceEnd = regexp.MustCompile(`([.!?])\s+([A-Z"'(])`)

// Sentences splits prose into sentences on ". X" boundaries.
func Sentences(text string) []string {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	marked := sentenceEnd.ReplaceAllString(text, "$1\x00$2")
	var out []string
	for _, s := range strings.Split(marked, "\x00") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

var (
	ageYears  = regexp.MustCompile(`(\d+)[- ]year[- ]old`)
	ageMonths = regexp.MustCompile(`(\d+)[- ](month|week|day)[- ]old`)
)

// ParseDemographics reads age and sex from free text such as "35-year-old female".
func ParseDemographics(text string) clinic.Demographics {
	d := clinic.Demographics{Text: strings.TrimSpace(text)}
	if m := ageYears.FindStringSubmatch(text); m != nil {
		d.Age, _ = strconv.Atoi(m[1])
	} else if ageMonths.MatchString(text) {
		d.Age = 0
	}
	t := " " + strings.ToLower(text) + " "
	switch {
	case strings.Contains(t, "female") || strings.Contains(t, "woman") || strings.Contains(t, "girl") || strings.Contains(t, " lady"):
		d.Sex = "female"
	case strings.Contains(t, "male") || strings.Contains(t, " man") || strings.Contains(t, "boy") || strings.Contains(t, "gentleman"):
		d.Sex = "male"
	}
	return d
}

// uninformative says whether an imported text carries no fact at all.
func uninformative(s string) bool {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "" {
		return true
	}
	for _, p := range []string{"information not provided", "not provided", "no additional symptoms provided", "not available", "not applicable", "n/a", "none provided", "not specified", "unknown"} {
		if strings.TrimSuffix(t, ".") == p || strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}
