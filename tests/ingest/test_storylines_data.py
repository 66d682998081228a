"""The storylines as data: the cohort a seed gives is byte-identical to the one the Python-literal storylines gave.

The hashes below were computed from the cohort (MIMIC-IV folders, gold facts and the FHIR export) that the code
wrote before the storylines moved from Python literals to data files. A change to a storyline's content, to the
order storylines are listed in or to how they are loaded changes them; a deliberate content change updates them
(``_digest`` below prints the new ones).
"""

from __future__ import annotations

import hashlib
import json
from importlib import resources
from pathlib import Path

import pytest

from clinrag.ingest.fhir.export import write_cohort_exports
from clinrag.ingest.synthetic.cohort import generate_cohort
from clinrag.ingest.synthetic.model import Medication, Storyline
from clinrag.ingest.synthetic.storylines import COMORBIDITIES, STORYLINES
from clinrag.ingest.synthetic.storylines.loader import StorylineFileError, load_file, load_storylines

PATIENTS = 100
SEED = 11
EXPECTED_SHA256 = {
    "cohort.json": "a009ed2ff3c5c6d21f885317fc434faca843d686635cde8f3931d4a92f177c06",
    "fhir/A/Condition.ndjson": "69881855abf7a651b7be53aa5262742221b826493aba17919417ec1ed3aefdd6",
    "fhir/A/Coverage.ndjson": "4e1fbfbd6e1ba6ba3e60d287b2460aef8fa3694eace5e220c1da40166b293b96",
    "fhir/A/DocumentReference.ndjson": "ce8944cc013682b8bca5c64e93bae10af5420c1047bdb878c65b5b31bccc4aa6",
    "fhir/A/Encounter.ndjson": "9d8007ff3a56be8990364ca665af2a483631d66cbe4d83a7eade06271edee67b",
    "fhir/A/MedicationRequest.ndjson": "ae6478047cef885a32cd4caf21e58392af0d9b9989d8e757f6024fd047afbb80",
    "fhir/A/Patient.ndjson": "bda25984243b31a3d3a9f9a1a05f475a8bdedc12962df5a3c020b89fd56def18",
    "fhir/A/Procedure.ndjson": "0c5603f529e45ab7ef907609b44753fd02e7201c39c20e8c9016b43057fb5f8f",
    "fhir/A/clinrag-source.toml": "bdefd454e5a675a01a789834bf429c6349b592eef14585fcd366810b68ff1114",
    "fhir/A/manifest.json": "09414dc1ada19cdbcec2479214279cd51726eb63baebb93cb2fdf5584e814359",
    "fhir/B/Condition.ndjson": "8b0955be22de7a9b821c1afc20962bd79a26be453b441b020fa60853bbb10ab4",
    "fhir/B/Coverage.ndjson": "dc2bbb69f315771339b239a9333b6fa1db74ba8dd1802718c027de29778b8cd8",
    "fhir/B/DocumentReference.ndjson": "df964c3ece648653341b9188eab03599bfa868808d7d281bc875477bcf6dc5c6",
    "fhir/B/Encounter.ndjson": "7885d2ddd318d86ff8bd39fb12e5a402f409cb277e8402d360a2e620a1a7e7e0",
    "fhir/B/MedicationRequest.ndjson": "58a79c214aac86bb9be7cfc8ff9a4720880bd18882ea93318bcc97a723272c52",
    "fhir/B/Patient.ndjson": "f971ec9536bc175965e5c0df9b000999db1d564e028c24e3791f9101525d6de6",
    "fhir/B/Procedure.ndjson": "7872b5ba9b9ceb56d41eb7ffa69985d5570dd00cbc6a31ecfb7d3b5499d26c5d",
    "fhir/B/clinrag-source.toml": "a9aa58d99b66251f8e6e218ef6a7353d028e08b8089843be746cca831048550a",
    "fhir/B/manifest.json": "15347de88fbac32a76c07ac5efe0fe113abab052444ae428f8e2ca7837e5523b",
    "fhir/C/Condition.ndjson": "5f189ae30ce0ab26f529976b60ae18b84f8bae6ee07a6fb20fab55d9dda0d2fa",
    "fhir/C/Coverage.ndjson": "524ba2b8f301206443d8236548e62bb17874604b6de4379a4d00bc8a48ebb4f3",
    "fhir/C/DocumentReference.ndjson": "fd8a4cea31cc1b612cd6b6a31f7865b59b518c0fd8395eae3e91f06da358d6db",
    "fhir/C/Encounter.ndjson": "57ff5ffcbadd3850a53a207c004c62626f1151e731a10ef9cd38df27c7ec2a98",
    "fhir/C/MedicationRequest.ndjson": "3b3de53fd1e10d759ada5abb7e16c65b976520f89b220d4d8931dd61131b89ec",
    "fhir/C/Patient.ndjson": "560d13791a920e0fbe3868b6773a1d2bd57a934efd8ef3f760594715c49def25",
    "fhir/C/Procedure.ndjson": "12036b7d855fcf8360289048ef9880c42699764d787865ea62ea400ad6706bc4",
    "fhir/C/clinrag-source.toml": "0d0d83cbf196bf6fa7001e06e8f588bda06c425771004ab72b019b731370c59c",
    "fhir/C/manifest.json": "6a443fa080d28348f7acee53b1e59f0de77c4a7e64c1a062db3042fb0af5d9f8",
    "fhir/full/Condition.ndjson": "b8f9ac430bd7eb79f7756a490f42904dd22ac2e599cc7699bc1c74aaf6aee87a",
    "fhir/full/Coverage.ndjson": "2e38e3a02817a8f7bb9dcb99f674e10c2388e9cc2dd4813099b93f33429bf192",
    "fhir/full/DocumentReference.ndjson": "56dcc23d5600cd645d6eca6b73866aad405ecb9cbdee46411dec05fd5c370ff1",
    "fhir/full/Encounter.ndjson": "595be98fc9df29fbf8c0359ee5aab899f0a84a27d09254a336951f431cbbfb53",
    "fhir/full/MedicationRequest.ndjson": "a36f2ac9ba2dd4d69b49aaea64dcdae620e00e39de1911ff9f031a24e75bd907",
    "fhir/full/Patient.ndjson": "1689029b814adffaca01deaf01a5605b3f257f1cebc3692eb55e8629a4912ec7",
    "fhir/full/Procedure.ndjson": "3056a194b81bb6d3208e680b3d01f332288c8c750a630983a134cc97aa6dadf6",
    "fhir/full/clinrag-source.toml": "a24eb3bbdd016bdb448d6d40f4785efeb0479fcc1ce4d04c574b42c1c1032d87",
    "fhir/full/manifest.json": "90144a9b6448b3be2b0dc4b682c217e8933ec7f324cc6f0fd527905ae488e883",
    "full/clinrag-source.toml": "a24eb3bbdd016bdb448d6d40f4785efeb0479fcc1ce4d04c574b42c1c1032d87",
    "full/hosp/admissions.csv": "9d5b57cf7c1cf5f1bebd746fc1a425f17ad3d4f7447f5907cc526c886133f6b2",
    "full/hosp/d_icd_diagnoses.csv": "62af2702d545ca7bff30f350830513231b1268932c6fef45ae70cbbd763b6f50",
    "full/hosp/d_icd_procedures.csv": "499bd8bbd7ae466bff9630a17e54408238b8bafe8d273f926985f008ccf926aa",
    "full/hosp/diagnoses_icd.csv": "31179443c7418ff9a6f3d1939e6be67b75a5e9c277309ec2bab50ba82d1f070b",
    "full/hosp/patients.csv": "e9ee214c161c63b5647081092bc39384e68ad2dc014a3991c372dc5d920aa6a6",
    "full/hosp/prescriptions.csv": "f2868aecde7db7a6960f63f04bca8a8d6980a6b73d6d6eaacc9046dd241527e1",
    "full/hosp/procedures_icd.csv": "25b0f6672798aeab716dd00577595926f20116cc4059b43ed427615ab8720e6c",
    "full/hosp/services.csv": "e726dff9c151b85c961587a6454c0be42b91e7b5ac1be09006763cade1ad78c1",
    "full/note/discharge.csv": "26bd1b8c39286cb6d8d9bbc245504a8b58eafbf7361d92ba8c43485d750aa7ea",
    "gold_facts.jsonl": "dc58a8e702eb3e5997773060cf1394789bfb4bfc7884eb548303de79c1f61869",
    "hospitals/A/clinrag-source.toml": "bdefd454e5a675a01a789834bf429c6349b592eef14585fcd366810b68ff1114",
    "hospitals/A/hosp/admissions.csv": "cd1c7a39862caccab6ec22dcf86a71c43fa030cbe6a01bc50c63dc0392914faf",
    "hospitals/A/hosp/d_icd_diagnoses.csv": "62af2702d545ca7bff30f350830513231b1268932c6fef45ae70cbbd763b6f50",
    "hospitals/A/hosp/d_icd_procedures.csv": "499bd8bbd7ae466bff9630a17e54408238b8bafe8d273f926985f008ccf926aa",
    "hospitals/A/hosp/diagnoses_icd.csv": "abc4736a0066df9597bc6468a75c6b43434187c168f4d0638a9f53a7678a99ab",
    "hospitals/A/hosp/patients.csv": "81fcca8a93cb7a44fa22abe8f64fe47752132246bb4a430143d1604079e0da43",
    "hospitals/A/hosp/prescriptions.csv": "c50269a3523a21d756407d8961e4904cb093cba3db8889312822efc068acb83c",
    "hospitals/A/hosp/procedures_icd.csv": "20fb9cab5bf350862d57c2323147dd84ca37cc1b52c8637b4aa1f7c4608eb9ea",
    "hospitals/A/hosp/services.csv": "9b49f2eed6bcd29f8b963580bcd9ff38993bce1fd78ba230d45a2c4cb3d598c1",
    "hospitals/A/note/discharge.csv": "0a74727b6dd06ad74cf630e1d0b52934097da703efd61ee138d6435471c39434",
    "hospitals/B/clinrag-source.toml": "a9aa58d99b66251f8e6e218ef6a7353d028e08b8089843be746cca831048550a",
    "hospitals/B/hosp/admissions.csv": "e3f2dfa344b55885c7f6eef045c07381704ab7c023e597804e1bc38890a49dea",
    "hospitals/B/hosp/d_icd_diagnoses.csv": "62af2702d545ca7bff30f350830513231b1268932c6fef45ae70cbbd763b6f50",
    "hospitals/B/hosp/d_icd_procedures.csv": "499bd8bbd7ae466bff9630a17e54408238b8bafe8d273f926985f008ccf926aa",
    "hospitals/B/hosp/diagnoses_icd.csv": "5f77623793a7eae0bcb6336b1c23f636ddc62d9cdf249c96ce4ab0dc2b017dda",
    "hospitals/B/hosp/patients.csv": "539731532818f330e0a8786b982d7181e4e8bd18604cba979dbf26371831cf6c",
    "hospitals/B/hosp/prescriptions.csv": "0e451d7356203de204c4644ab9f0f62791c2096967bb4d721059240c53bf8daf",
    "hospitals/B/hosp/procedures_icd.csv": "808d815e4bd8fbd207ec57ac2aaed996ae9688486cfd590272f79b8d599dafd4",
    "hospitals/B/hosp/services.csv": "1cd7941f9e7ab57d464e8c026066e335f3829a8e4dd60baeecabce05a9ff5b96",
    "hospitals/B/note/discharge.csv": "5bd05f5bf6c57ed3eb4fca66e969dd415311163968b7c514830edb387946d6b7",
    "hospitals/C/clinrag-source.toml": "0d0d83cbf196bf6fa7001e06e8f588bda06c425771004ab72b019b731370c59c",
    "hospitals/C/hosp/admissions.csv": "0cb1db23bd7a54df4e87e70c2ddd61351fe258b7be26497ef2d66fe049c6cdd1",
    "hospitals/C/hosp/d_icd_diagnoses.csv": "62af2702d545ca7bff30f350830513231b1268932c6fef45ae70cbbd763b6f50",
    "hospitals/C/hosp/d_icd_procedures.csv": "499bd8bbd7ae466bff9630a17e54408238b8bafe8d273f926985f008ccf926aa",
    "hospitals/C/hosp/diagnoses_icd.csv": "b2afdfbfe6fb7d11e761fa3e3931fc0605cd1d8713d427782d1815cbd9b5f975",
    "hospitals/C/hosp/patients.csv": "250e547976884d869bcdc6244ea9ac65f3430d7023a8d912efea957adf8b5d84",
    "hospitals/C/hosp/prescriptions.csv": "bcf15519d808b5336629eb16ceb0423ca133a605e1959ce1da428c7b276e1dbc",
    "hospitals/C/hosp/procedures_icd.csv": "87f3f6407607da094d3160d048b0f9e6fe7aa87e377984b6cf66e557fbf94a88",
    "hospitals/C/hosp/services.csv": "c5b25e04cb59898475df756f3025c9caa1222423640c46835ddb95036cf0132d",
    "hospitals/C/note/discharge.csv": "2445c3d3d5149c097ca77a2121db5755e4f8d55ce1ce5b108a4b79cc7ee0f1ad",
}


def _content(path: Path) -> bytes:
    """The file's bytes; a FHIR manifest without its ``transactionTime`` (the wall clock, not the seed)."""
    if path.name != "manifest.json":
        return path.read_bytes()
    manifest = json.loads(path.read_text())
    del manifest["transactionTime"]
    return json.dumps(manifest, indent=2).encode()


def _digest(root: Path) -> dict[str, str]:
    return {
        str(path.relative_to(root)): hashlib.sha256(_content(path)).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def test_cohort_for_a_seed_is_byte_identical_to_the_reference(tmp_path: Path) -> None:
    generate_cohort(tmp_path, patients=PATIENTS, seed=SEED, workers=1)
    write_cohort_exports(tmp_path)
    # every storyline is in this cohort, so the hashes cover all of their content
    storylines = {json.loads(line)["storyline"] for line in (tmp_path / "gold_facts.jsonl").open()}
    assert storylines == {storyline.key for storyline in STORYLINES}
    digest = _digest(tmp_path)
    assert sorted(digest) == sorted(EXPECTED_SHA256)
    changed = sorted(name for name, sha in digest.items() if EXPECTED_SHA256[name] != sha)
    assert changed == []


# --- the data files and their schema ----------------------------------------------------------------------------

STORYLINE_FOLDER = resources.files("clinrag.ingest.synthetic.storylines")
DATA_FILES = sorted(item.name for item in STORYLINE_FOLDER.iterdir() if item.name.endswith(".yaml"))

VALID = """\
medications:
  aspirin: {drug: Aspirin, dose: '81', unit: mg, route: PO, frequency: DAILY}
storylines:
  - key: flu
    title: Influenza
    service: MED
    note_service: MEDICINE
    ages: [18, 90]
    length_of_stay: [2, 4]
    admission_types: [EW EMER.]
    admission_locations: [EMERGENCY ROOM]
    discharge_locations: [HOME]
    chief_complaints: fever
    diagnosis: {code: J111, phrases: [influenza, flu]}
    medications: [aspirin]
    hpi: ['{Mr} ___ is a {age} year old {man} with {history} and {diagnosis}.']
    course: [['{He} was treated for {diagnosis}.']]
    instructions: You had the flu.
"""


def _write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)
    return folder


def _problems(folder: Path) -> list[str]:
    with pytest.raises(StorylineFileError) as raised:
        load_storylines(folder)
    return raised.value.problems


@pytest.mark.parametrize("name", DATA_FILES)
def test_each_data_file_is_valid_against_the_schema(name: str) -> None:
    content = load_file(STORYLINE_FOLDER / name)  # raises StorylineFileError naming every problem
    assert content.storylines or content.comorbidities
    assert all(isinstance(storyline, Storyline) for storyline in content.storylines)


def test_the_package_loads_every_file_in_name_order() -> None:
    content = load_storylines(STORYLINE_FOLDER)
    assert content.storylines == STORYLINES
    assert content.comorbidities == COMORBIDITIES
    assert DATA_FILES[0] == "01-medicine.yaml"
    assert "comorbidities.yaml" in DATA_FILES


def test_a_valid_file_loads_with_named_entries_resolved(tmp_path: Path) -> None:
    (storyline,) = load_storylines(_write(tmp_path, "flu.yaml", VALID)).storylines
    assert storyline.medications == (Medication("Aspirin", "81", "mg", "PO", "DAILY"),)
    assert storyline.chief_complaints == ("fever",)  # a lone string is one phrasing
    assert storyline.course == (("{He} was treated for {diagnosis}.",),)


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (
            ("    ages: [18, 90]\n", "    ages: [18, old]\n"),
            "x.yaml: storyline 'flu': ages.1: Input should be a valid integer",
        ),
        (("    title: Influenza\n", ""), "x.yaml: storyline 'flu': title: Field required"),
        (
            ("    service: MED\n", "    service: MED\n    servise: MED\n"),
            "x.yaml: storyline 'flu': servise: Unexpected",
        ),
        (
            ("medications: [aspirin]", "medications: [asprin]"),
            "x.yaml: storyline 'flu': medications.0: Value error, no entry",
        ),
        (("code: J111,", "code: 111,"), "x.yaml: storyline 'flu': diagnosis.code: Input should be a valid string"),
        (("dose: '81'", "dose: 81"), "x.yaml: medications 'aspirin': dose: Input should be a valid string"),
        (
            ("hpi: ['{Mr} ___ is a {age} year old {man} with {history} and {diagnosis}.']", "hpi: []"),
            "x.yaml: storyline 'flu': hpi: Value should have at least 1 item",
        ),
        (("storylines:", "storyline:"), "x.yaml: unknown section 'storyline'"),
        (
            ("  - key: flu\n", "  - key: flu\n    next_storylines: [flue]\n"),
            "storyline 'flu': next_storylines.0: no storyline 'flue'",
        ),
        (("{drug: Aspirin,", "{drug: Aspirin"), "x.yaml: not valid YAML"),
        (("with {history}", "with {histroy}"), "x.yaml: storyline 'flu': hpi.0: unknown placeholder {histroy}"),
        (("treated for {diagnosis}", "treated for {diagnosis"), "x.yaml: storyline 'flu': course.0.0: expected '}'"),
    ],
    ids=[
        "type",
        "missing",
        "unknown-field",
        "unknown-name",
        "number-as-code",
        "catalogue",
        "empty",
        "section",
        "next",
        "yaml",
        "placeholder",
        "brace",
    ],
)
def test_a_malformed_file_is_reported_with_file_storyline_and_field(
    tmp_path: Path, change: tuple[str, str], problem: str
) -> None:
    old, new = change
    assert old in VALID
    problems = _problems(_write(tmp_path, "x.yaml", VALID.replace(old, new, 1)))
    assert any(line.startswith(problem) for line in problems), problems


def test_every_problem_of_every_file_is_reported_at_once(tmp_path: Path) -> None:
    _write(tmp_path, "a.yaml", VALID.replace("title: Influenza", "title: [Influenza, 2]"))
    _write(tmp_path, "b.yaml", VALID.replace("key: flu", "key: grippe").replace("    ages: [18, 90]\n", ""))
    problems = _problems(tmp_path)
    assert problems == [
        "a.yaml: storyline 'flu': title: Input should be a valid string",
        "b.yaml: storyline 'grippe': ages: Field required",
    ]
    with pytest.raises(StorylineFileError, match=r"(?s)invalid storyline files:\n  a\.yaml: .*\n  b\.yaml: "):
        load_storylines(tmp_path)


def test_a_key_used_twice_is_reported(tmp_path: Path) -> None:
    _write(tmp_path, "a.yaml", VALID)
    _write(tmp_path, "b.yaml", VALID)
    assert _problems(tmp_path) == ["storyline key 'flu' is used 2 times"]
