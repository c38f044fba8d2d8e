package sdbench_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/benchmarks/sdbench"
)

// TestAsksForDiagnosis: the gatekeeper refuses requests for this patient's
// diagnosis (Nori et al. 2025, §2) and nothing else: questions about
// diagnoses of the past or the family, and about diagnostic tests, are
// history and pass.
func TestAsksForDiagnosis(t *testing.T) {
	refused := []string{
		"What is the diagnosis?", "What's the diagnosis?", "Tell me the diagnosis.", "What is the final diagnosis?",
		"What is her diagnosis?", "What is his diagnosis?", "Diagnosis?", "Can you give me the diagnosis?",
		"What is the most likely diagnosis?", "What is the correct diagnosis?", "Which diagnosis is right?",
		"Is there a unifying diagnosis?", "What is the working diagnosis?", "What are the differential diagnoses?",
		"What is wrong with her?", "What's wrong with the patient?", "What is wrong with me?",
		"What is causing her symptoms?", "What's causing this?", "What is the underlying cause?", "What is the problem?",
		"What is your impression?", "What is your opinion of the case?", "Your assessment, please?", "What's your best guess?",
		"What do you think it is?", "What do you think is going on?", "What disease does she have?",
		"What condition does the patient have?", "What illness does he have?", "What syndrome does the child have?",
		"Which disease explains this?", "What is the answer?", "Just give me the right answer.",
	}
	passed := []string{
		"Has she ever been diagnosed with diabetes?", "Were any diagnostic tests done before?",
		"Was he diagnosed with anything as a child?", "What medical conditions has she been diagnosed with before?",
		"Any previous diagnoses of cancer?", "What diagnoses are in her past medical history?",
		"Has anyone in the family been diagnosed with lupus?", "When was her hypertension diagnosed?",
		"Did she have diagnostic imaging last year?", "What did the earlier diagnostic workup show?",
		"Has she had a diagnosis of asthma before?", "Does her mother have a diagnosis of thyroid disease?",
		"What was the diagnosis at her previous admission?", "What known diagnoses does he carry?",
		"What chronic conditions has she been diagnosed with?", "What diagnosis did another doctor give years ago?",
		"When did the pain start?", "Any fever or weight loss?", "What medicines does she take?",
		"Does she smoke?", "Where exactly is the swelling?", "How much alcohol does he drink?",
		"Has she travelled recently?", "What is her occupation?", "What makes the pain worse?",
		"Is there any family history of bleeding?", "What does the rash look like?", "Any shortness of breath?",
		"What was her blood pressure?", "What did the examination of the neck show?",
		"Has she had any operations?", "What vaccinations has she had?", "Is she pregnant?",
		"What were the results of the earlier diagnostic tests?",
	}
	require.GreaterOrEqual(t, len(refused), 30)
	require.GreaterOrEqual(t, len(passed), 30)
	for _, q := range refused {
		require.True(t, sdbench.AsksForDiagnosis(q), "%q should be refused", q)
	}
	for _, q := range passed {
		require.False(t, sdbench.AsksForDiagnosis(q), "%q should reach the gatekeeper", q)
	}
}
