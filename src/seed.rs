//! The demo challenge that `serve` seeds into an empty database: twenty imaginary images, each
//! with three short reference captions, and two baseline systems. The project wrote every caption
//! here itself; no dataset is involved.

use sqlx::PgPool;

use crate::actions::{self, Uploader};
use crate::domain::{ChallengeSlug, SplitName, Title};
use crate::scoring::SharedEngine;

/// (image id, three references, a careful system's caption, a sloppy system's caption).
const IMAGES: [(i64, [&str; 3], &str, &str); 20] = [
    (
        1,
        [
            "a brown dog runs across a green lawn",
            "a dog running on the grass",
            "a small brown dog playing in a yard",
        ],
        "a brown dog running on grass",
        "an animal outside",
    ),
    (
        2,
        [
            "two children build a sandcastle on the beach",
            "kids playing with sand near the sea",
            "a boy and a girl making a castle of sand",
        ],
        "two kids building a sand castle on a beach",
        "people at the beach",
    ),
    (
        3,
        [
            "a red bus parked beside a tall building",
            "a double decker bus on a city street",
            "a large red bus waiting at a stop",
        ],
        "a red bus on a city street",
        "a car on a road",
    ),
    (
        4,
        [
            "a woman reads a book on a park bench",
            "a lady sitting on a bench with a book",
            "a person reading outdoors on a wooden bench",
        ],
        "a woman reading a book on a bench",
        "a woman sitting",
    ),
    (
        5,
        [
            "a plate of pasta with tomato sauce",
            "spaghetti topped with red sauce and basil",
            "a white plate holding noodles and sauce",
        ],
        "a plate of spaghetti with red sauce",
        "food on a table",
    ),
    (
        6,
        [
            "a black cat sleeps on a windowsill",
            "a cat lying in the sun by a window",
            "a dark cat napping near the glass",
        ],
        "a black cat sleeping by a window",
        "a cat",
    ),
    (
        7,
        [
            "a man rides a bicycle down a hill",
            "a cyclist going downhill on a bike",
            "a person on a bike riding along a steep road",
        ],
        "a man riding a bike down a hill",
        "a man on a street",
    ),
    (
        8,
        [
            "three sheep graze in a foggy field",
            "sheep eating grass on a misty hillside",
            "a few white sheep in a green pasture",
        ],
        "three sheep grazing in a field",
        "animals in a field",
    ),
    (
        9,
        [
            "a yellow kite flies over the ocean",
            "a kite in the blue sky above the water",
            "someone flying a bright kite at the shore",
        ],
        "a yellow kite flying over the sea",
        "a bird in the sky",
    ),
    (
        10,
        [
            "a chef chops onions in a busy kitchen",
            "a cook cutting vegetables on a board",
            "a man in a white hat slicing onions",
        ],
        "a chef cutting onions in a kitchen",
        "a man in a room",
    ),
    (
        11,
        [
            "a train crosses a long stone bridge",
            "an old train going over a bridge",
            "a passenger train on a bridge above a river",
        ],
        "a train crossing a bridge over a river",
        "a bridge",
    ),
    (
        12,
        [
            "a girl holds a large pink umbrella",
            "a young girl with an umbrella in the rain",
            "a child standing under a pink umbrella",
        ],
        "a girl holding a pink umbrella",
        "a child with an umbrella",
    ),
    (
        13,
        [
            "two horses stand near a wooden fence",
            "a pair of horses beside a fence in a field",
            "brown horses waiting by the gate",
        ],
        "two horses standing by a fence",
        "horses",
    ),
    (
        14,
        [
            "a laptop and a cup of coffee on a desk",
            "a desk with a computer and a mug",
            "an open laptop next to a white coffee cup",
        ],
        "a laptop and a coffee cup on a desk",
        "a desk in an office",
    ),
    (
        15,
        [
            "a surfer rides a big wave",
            "a man surfing on a tall wave",
            "a person on a surfboard in the ocean",
        ],
        "a surfer riding a large wave",
        "a man in the water",
    ),
    (
        16,
        [
            "a tall giraffe eats leaves from a tree",
            "a giraffe reaching up to a tree",
            "a giraffe feeding on green leaves",
        ],
        "a giraffe eating leaves from a tree",
        "a tall animal",
    ),
    (
        17,
        [
            "an old man feeds pigeons in a square",
            "a man throwing bread to birds",
            "a gray haired man with many pigeons around him",
        ],
        "an old man feeding pigeons",
        "a man with birds",
    ),
    (
        18,
        [
            "a blue boat tied to a small dock",
            "a small boat floating by a pier",
            "a wooden boat resting at the dock on a lake",
        ],
        "a blue boat at a dock",
        "a boat",
    ),
    (
        19,
        [
            "a clock tower stands against a cloudy sky",
            "a tall tower with a clock on top",
            "an old stone clock tower under clouds",
        ],
        "a tall clock tower under a cloudy sky",
        "a building",
    ),
    (
        20,
        [
            "a skateboarder jumps over a set of stairs",
            "a boy doing a trick on a skateboard",
            "a young man skateboarding above the steps",
        ],
        "a skateboarder jumping over stairs",
        "a boy outside",
    ),
];

/// Creates challenge `demo` with split `val` (COCO format), queues the two baselines and the
/// Human row. Scores appear as the workers get to them.
pub async fn seed_demo(
    pool: &PgPool,
    engine: &SharedEngine,
    max_attempts: i32,
) -> Result<(), actions::ActionError> {
    let slug =
        ChallengeSlug::parse("demo").map_err(|e| actions::ActionError::Invalid(e.to_string()))?;
    let title = Title::parse("Demo: twenty everyday scenes")
        .map_err(|e| actions::ActionError::Invalid(e.to_string()))?;
    let challenge = actions::create_challenge(
        pool,
        &slug,
        &title,
        "A small challenge to try spiceboard with: twenty imaginary images, three human captions each, written by the spiceboard authors.", None,
    )
    .await?;
    let split =
        SplitName::parse("val").map_err(|e| actions::ActionError::Invalid(e.to_string()))?;
    actions::import_references(
        pool,
        engine,
        &challenge,
        &split,
        demo_references().into_bytes(),
        actions::ImportMode::default(),
    )
    .await?;
    let split = actions::split(pool, &challenge, "val").await?;
    let limits = actions::SubmitLimits {
        max_caption_chars: 1000,
        parse_words_per_image: crate::domain::results_file::ParseBudget::DEFAULT_WORDS_PER_IMAGE,
        max_attempts,
        disk_floor: None,
    };
    for (label, careful) in [("Careful baseline", true), ("Vague baseline", false)] {
        let bytes = demo_results(careful).into_bytes();
        let uploader = Uploader::Baseline {
            label,
            user_id: None,
        };
        actions::submit(
            pool,
            &challenge,
            &split,
            uploader,
            "seeded demo baseline",
            &crate::domain::SubmissionMethod::default(),
            bytes,
            limits.clone(),
        )
        .await?;
    }
    actions::compute_human(pool, &split, max_attempts).await?;
    Ok(())
}

/// The demo's candidate captions as a COCO results file: the careful system's or the vague one's.
pub fn demo_results(careful: bool) -> String {
    let results: Vec<serde_json::Value> = IMAGES
        .iter()
        .map(|(id, _, good, bad)| serde_json::json!({"image_id": id, "caption": if careful { good } else { bad }}))
        .collect();
    serde_json::Value::Array(results).to_string()
}

/// The demo's references as COCO annotation JSON.
pub fn demo_references() -> String {
    let annotations: Vec<serde_json::Value> = IMAGES
        .iter()
        .flat_map(|(id, refs, _, _)| {
            refs.iter()
                .map(move |c| serde_json::json!({"image_id": id, "caption": c}))
        })
        .collect();
    serde_json::json!({"images": IMAGES.iter().map(|(id, ..)| serde_json::json!({"id": id})).collect::<Vec<_>>(), "annotations": annotations}).to_string()
}
