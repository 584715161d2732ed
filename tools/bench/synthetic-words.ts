/**
 * Word lists for synthetic catalogues (see synthetic-records.ts). Hand-picked so results
 * are the same on every machine; inflected forms are derived to reach a vocabulary of a
 * few thousand words.
 */

/** Frog and meme words: the tag pool starts with these, descriptions use them often. */
export const MEME_WORDS = `pepe frog feelsgoodman feelsbadman smug sad happy angry rare comfy apu apustaja peepo
monkaS pog poggers kek kekw honk clown wojak doomer bloomer zoomer boomer coomer based cringe copium
hopium seethe cope smol chonk toad tadpole amphibian lilypad swamp pond croak ribbit kermit
meme dank normie reee reeee sadge pepega pepehands widepeepo feelsokayman pepelaugh pepepls
hypers ez gachi catjam blobdance pixel shitpost lurk lurker anon greentext chad virgin npc
sigma ratio touchgrass vibe vibing bonk stonks hodl moon lambo wagmi ngmi gm gn fren frens
smirk tears crying laughing screaming thinking facepalm salute shrug wave dab clap hug
hat crown suit tie hoodie scarf glasses sunglasses headphones cigar pipe coffee tea pizza
sword shield wizard king knight samurai ninja pirate astronaut cowboy chef doctor nurse
christmas halloween easter winter summer rain snow night space ocean forest city`.split(/\s+/);

/** Everyday English words for descriptions (and a few tags). */
const ENGLISH_WORDS = `the a an and or but with without of in on at by for from to into onto over under
about after before behind between during near through across against along around
is are was were be been being has have had do does did can could will would should may might
this that these those his her its their our your my some any every each many few more most
very quite rather really just only also still even again never always often sometimes
green red blue yellow black white brown orange purple pink grey gold silver dark light bright
big small large tiny huge little long short tall wide narrow round flat thin thick soft hard
old young new ancient modern fresh quiet loud slow fast early late warm cold hot cool wet dry
good bad great fine nice poor rich strange funny serious calm wild gentle proud shy brave
sitting standing looking holding wearing eating drinking reading writing playing singing
dancing sleeping dreaming thinking waiting walking running jumping swimming flying falling
smiling frowning staring pointing typing gaming painting drawing cooking crying laughing
man woman child friend family people person group crowd team player artist writer reader
face eye eyes mouth nose ear hand hands arm arms leg legs head hair back heart mind voice
house room table chair window door wall floor roof garden street road bridge river lake
tree trees flower flowers grass leaf leaves stone rock hill mountain field sky sun moon star
cloud clouds wind storm fire water ice sand dust smoke light shadow color picture image
phone computer screen keyboard desk book paper pen letter note sign card box bag bottle cup
glass plate bowl knife fork spoon bread cheese apple banana cake cookie soup burger fries
car bus train plane boat ship bike truck rocket engine wheel machine robot tool hammer
morning evening afternoon day week month year time moment hour minute second today yesterday
money price market trade chart line graph number word story song music game movie show
world country town village island desert jungle beach coast valley cave tower castle palace
school office shop store bank hospital church museum library station airport park zoo farm
dog cat bird fish horse cow pig sheep duck mouse rabbit bear wolf fox lion tiger snake
king queen prince princess soldier worker farmer teacher student doctor police judge
love hate fear hope joy anger peace war life death dream memory thought idea plan goal
begin end start finish open close make take give find keep hold turn move stop leave
see look watch hear listen feel touch taste smell know learn teach understand remember forget
call ask answer tell say speak talk shout whisper sing laugh smile cry sigh yawn sneeze
cafe naive resume fiance jalapeno pinata facade cliche deja vu creme brulee`.split(/\s+/);

/** Accented originals of some words above: descriptions sometimes use them, search must fold them. */
export const ACCENTED: Record<string, string> = {
  cafe: 'café',
  naive: 'naïve',
  resume: 'résumé',
  fiance: 'fiancé',
  jalapeno: 'jalapeño',
  pinata: 'piñata',
  facade: 'façade',
  cliche: 'cliché',
  deja: 'déjà',
  creme: 'crème',
  brulee: 'brûlée',
};

const SUFFIXES = ['s', 'ed', 'ing', 'er', 'ly', 'ness', 'y'];

/** Base words, and derived forms (rarer in descriptions), deduplicated, in a fixed order. */
export function buildVocabulary(): { base: string[]; derived: string[] } {
  const base = [...new Set([...MEME_WORDS.map((w) => w.toLowerCase()), ...ENGLISH_WORDS])];
  const derived = new Set<string>();
  for (const suffix of SUFFIXES) for (const word of base) if (word.length >= 3 && !base.includes(word + suffix)) derived.add(word + suffix);
  return { base, derived: [...derived] };
}
