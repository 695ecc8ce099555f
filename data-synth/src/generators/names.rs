//! Name lists for `linkage-pair`, typed here (no downloads). Common English-language first
//! names and surnames, most frequent first; the generator gives them Zipf-like frequencies.

/// Male first names, roughly most common first.
pub const MALE: &str = "james john robert michael william david richard joseph thomas charles \
christopher daniel matthew anthony mark donald steven paul andrew joshua kenneth kevin brian \
george timothy ronald edward jason jeffrey ryan jacob gary nicholas eric jonathan stephen larry \
justin scott brandon benjamin samuel gregory alexander frank patrick raymond jack dennis jerry \
tyler aaron jose adam nathan henry douglas zachary peter kyle ethan walter noah jeremy \
christian keith roger terry gerald harold sean austin carl arthur lawrence dylan jesse jordan \
bryan billy joe bruce gabriel logan albert willie alan juan wayne elijah randy roy vincent \
ralph eugene russell bobby mason philip louis oliver harry liam owen callum lewis rhys";

/// Female first names, roughly most common first.
pub const FEMALE: &str = "mary patricia jennifer linda elizabeth barbara susan jessica sarah \
karen lisa nancy betty margaret sandra ashley kimberly emily donna michelle carol amanda \
dorothy melissa deborah stephanie rebecca sharon laura cynthia kathleen amy angela shirley \
anna brenda pamela emma nicole helen samantha katherine christine debra rachel carolyn janet \
catherine maria heather diane ruth julie olivia joyce virginia victoria kelly lauren christina \
joan evelyn judith megan andrea cheryl hannah jacqueline martha gloria teresa ann sara madison \
frances kathryn janice jean abigail alice judy sophia grace denise amber doris marilyn danielle \
beverly isabella theresa diana natalie brittany charlotte marie kayla alexis lori chloe \
jessie amelia isla ava mia poppy ella lily sophie";

/// Surnames, roughly most common first.
pub const SURNAMES: &str = "smith jones williams taylor brown davies evans wilson thomas \
johnson roberts robinson thompson wright walker white edwards hughes green hall lewis harris \
clarke patel jackson wood turner martin cooper hill ward morris moore clark lee king baker \
harrison morgan allen james scott phillips watson davis parker price bennett young griffiths \
mitchell kelly cook carter richardson bailey collins bell shaw murphy miller cox richards khan \
marshall anderson simpson ellis adams singh begum wilkinson foster chapman powell webb rogers \
gray mason ali hunt hussain campbell matthews owen palmer holmes mills barnes knight lloyd \
butler russell barker fisher stevens jenkins murray dixon harvey graham pearson ahmed \
fletcher walsh kaur gibson howard andrews stewart elliott reynolds saunders payne fox ford \
pearce day brooks west lawrence cole atkinson bradley spencer gill dawson ball burton \
o'brien watts rose booth perry ryan grant wells armstrong francis rees hayes hart hudson \
newman barrett webster hunter gregory carr lowe page marsh riley dunn woods parsons berry \
stone reid holland hawkins harding porter robertson newton oliver reed kennedy williamson \
bird gardner shah dean lane cooke bates henderson parry burgess bishop walton burns nicholson \
shepherd ross cross long freeman warren nicholls hamilton byrne sutton mcdonald yates hodgson \
robson curtis hopkins o'connor harper coleman watkins moss mccarthy chambers o'neill griffin \
sharp hardy wheeler potter osborne johnston gordon doyle wallace george jordan hutchinson \
rowe burke may pritchard gilbert willis higgins read miles stevenson stephenson hammond \
arnold buckley walters hewitt barber nelson slater austin sullivan whitehead mann frost \
lambert stephens blake akhtar lynch goodwin barton woodward thomson cunningham quinn barnett \
baxter bibi clayton nash greenwood jennings holt kemp poole gallagher bryant conway moran";

/// Occupations (a coarse list).
pub const OCCUPATIONS: [&str; 30] = [
    "sales_assistant",
    "care_worker",
    "nurse",
    "teacher",
    "clerk",
    "driver",
    "cleaner",
    "manager",
    "engineer",
    "accountant",
    "chef",
    "electrician",
    "carpenter",
    "labourer",
    "software_developer",
    "police_officer",
    "mechanic",
    "hairdresser",
    "receptionist",
    "farmer",
    "doctor",
    "lawyer",
    "pharmacist",
    "architect",
    "plumber",
    "journalist",
    "librarian",
    "firefighter",
    "pilot",
    "dentist",
];

/// Postcode areas (letters); districts are numbered within each area.
pub const POSTCODE_AREAS: &str = "B M L LS S G E N SE SW NW W BS NG LE CV ST WV DY WS CF \
EH AB DD NE SR DH TS YO HU DN LN PE CB IP NR CO CM SS RM IG EN AL SG LU MK OX RG SL HP GU \
PO SO BH SP BA GL WR HR TF SY LL CH CW WA WN BL OL SK HD HX BD HG LA PR BB FY CA TD KY PH IV";
