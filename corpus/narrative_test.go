package corpus_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus"
)

// TestNarrativeTopics tags sentences of DiagnosisArena's case information
// (the first four are records 1, 3 and 853 as published).
func TestNarrativeTopics(t *testing.T) {
	for _, tc := range []struct {
		sentence string
		want     []string
	}{
		{"Family history notable for father who died of metastatic cutaneous melanoma at 83 years old.", []string{clinic.TopicFamily}},
		{"Medical history included a benign breast nodule resection in teenage years.", []string{clinic.TopicPastHistory}},
		{"Current medications included azathioprine 50 mg BID, chloroquine 250 mg QD, and losartan 50 mg QD.", []string{clinic.TopicMedications}},
		{"At age 4, she had recurrent seizures.", []string{clinic.TopicOnset, clinic.TopicCourse, clinic.TopicAssociated, clinic.TopicPastHistory}},
		{"She denied fever, weight loss, or fatigue.", []string{clinic.TopicAssociated, clinic.TopicSystems}},
		{"Initial blood tests showed a white cell count of 6.4.", []string{clinic.TopicPastHistory}},
		{"He smokes 20 cigarettes a day and works as a farmer.", []string{clinic.TopicSocial, clinic.TopicExposures}},
		{"She is allergic to penicillin.", []string{clinic.TopicAllergies}},
		{"As witnessed by the patient's parents, there was no cyanosis.", []string{clinic.TopicAssociated, clinic.TopicSystems}},
		{"She presented with a 2-year history of multiple plaques on her left arm.", []string{clinic.TopicDuration, clinic.TopicLocation, clinic.TopicAssociated}},
		{"The dialysis access was noted to have poor flow.", []string{clinic.TopicAssociated}},
	} {
		t.Run(tc.sentence, func(t *testing.T) {
			require.Equal(t, tc.want, corpus.NarrativeTopics(tc.sentence))
		})
	}
}

func TestFindingSystem(t *testing.T) {
	for _, tc := range []struct{ sentence, want string }{
		{"Dermoscopic evaluation showed a homogeneous yellow hue with no visible vascular structures.", "skin"},
		{"Heart rate: 136 beats per minute, blood pressure 70/30 mm Hg.", "vitals"},
		{"Slitlamp examination showed conjunctival injection of the right eye.", "eye"},
		{"Fine crackles were heard over both lung bases.", "respiratory"},
		{"The patient appeared comfortable.", "general"},
		{"Muscle strength was 3/5 in the lower limbs with absent reflexes.", "neurological"},
	} {
		t.Run(tc.sentence, func(t *testing.T) {
			require.Equal(t, tc.want, corpus.FindingSystem(tc.sentence))
		})
	}
}

// TestSplitList splits lists as DiagnosisArena holds them, their line
// breaks lost.
func TestSplitList(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []corpus.ListItem
	}{
		{"line breaks lost before markers", "- Laboratory tests: CRP normal.- Histopathology:   Punch biopsy showed whorls.",
			[]corpus.ListItem{{Label: "Laboratory tests", Text: "CRP normal."}, {Label: "Histopathology"}, {Text: "Punch biopsy showed whorls."}}},
		{"a marker after a word", "Examination revealed:- Graft detachment- Pseudohypopyon formation",
			[]corpus.ListItem{{Label: "Examination revealed"}, {Text: "Graft detachment"}, {Text: "Pseudohypopyon formation"}}},
		{"numbered in sequence", "1. Histopathology: granulomas2. Laboratory Tests: negative",
			[]corpus.ListItem{{Label: "Histopathology", Text: "granulomas"}, {Label: "Laboratory Tests", Text: "negative"}}},
		{"a number out of sequence is text", "Stage 3. Grade 2. Ki-67 10%",
			[]corpus.ListItem{{Text: "Stage 3. Grade 2. Ki-67 10%"}}},
		{"a ratio and a time are not labels", "Antinuclear antibody titer 1:640 at 10:30",
			[]corpus.ListItem{{Text: "Antinuclear antibody titer 1:640 at 10:30"}}},
		{"a hyphenated word is not a marker", "Anti-Jo antibodies - Positive",
			[]corpus.ListItem{{Text: "Anti-Jo antibodies"}, {Text: "Positive"}}},
		{"prose before a colon is not a label", "The patient reported the following symptoms at the first visit: cough",
			[]corpus.ListItem{{Text: "The patient reported the following symptoms at the first visit: cough"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, corpus.SplitList(tc.text))
		})
	}
}

func TestLeakGuard(t *testing.T) {
	g := corpus.NewLeakGuard("End-stage renal disease", "ESRD", "x")
	for _, tc := range []struct{ text, names, masked string }{
		{"He had end stage renal disease.", "End-stage renal disease", "He had [redacted]."},
		{"Known ESRD, on dialysis; ESRD since 2019.", "ESRD", "Known [redacted], on dialysis; [redacted] since 2019."},
		{"Renal disease, end stage.", "", "Renal disease, end stage."},
		{"ESRDs are rare; an x-ray was normal.", "", "ESRDs are rare; an x-ray was normal."},
	} {
		t.Run(tc.text, func(t *testing.T) {
			require.Equal(t, tc.names, g.Names(tc.text))
			require.Equal(t, tc.masked, g.Mask(tc.text))
		})
	}
}

func TestDiagnosisNames(t *testing.T) {
	for _, tc := range []struct {
		label, text       string
		name              string
		acceptable, guard []string
	}{
		{"Cutaneous meningeal heterotopia (CMH)", "", "Cutaneous meningeal heterotopia", []string{"CMH"}, []string{"Cutaneous meningeal heterotopia", "CMH"}},
		{"Leukocytoclastic vasculitis induced by immunotherapy (nivolumab)", "", "Leukocytoclastic vasculitis induced by immunotherapy (nivolumab)", nil,
			[]string{"Leukocytoclastic vasculitis induced by immunotherapy"}},
		{"End-stage renal disease", "The patient had end-stage renal disease (ESRD) requiring dialysis.", "End-stage renal disease", []string{"ESRD"},
			[]string{"End-stage renal disease", "ESRD"}},
		{"Epithelial downgrowth after Descemet membrane endothelial keratoplasty (DMEK)", "", "Epithelial downgrowth after Descemet membrane endothelial keratoplasty (DMEK)", nil,
			[]string{"Epithelial downgrowth after Descemet membrane endothelial keratoplasty"}},
	} {
		t.Run(tc.label, func(t *testing.T) {
			name, acceptable, guard := corpus.DiagnosisNames(tc.label, tc.text)
			require.Equal(t, tc.name, name)
			require.Equal(t, tc.acceptable, acceptable)
			require.Equal(t, tc.guard, guard)
		})
	}
}

// TestComplaintTopics: a sentence that describes the complaint's lesion is
// not another symptom; one that adds a symptom is.
func TestComplaintTopics(t *testing.T) {
	opening := "A woman presented with a solitary lump on her scalp."
	require.Equal(t, []string{clinic.TopicOnset, clinic.TopicCourse}, corpus.ComplaintTopics("The lesion appeared at birth and grew slowly.", opening))
	require.Contains(t, corpus.ComplaintTopics("The lesion appeared at birth, with fever.", opening), clinic.TopicAssociated)
	require.Contains(t, corpus.ComplaintTopics("The lesion appeared at birth and grew slowly.", "A man presented with cough."), clinic.TopicAssociated)
}
