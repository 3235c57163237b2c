/// What the persona screening looks for (issue 6): the reasons a creator's persona may not go public unseen.
public enum ModerationConcern: String, Sendable, Codable, CaseIterable {
    /// Text that tries to change the coach's rules or role, or hides instructions.
    case injection
    /// Asking users for personal or payment data.
    case personalData = "personal_data"
    /// Diagnosis, treatment, prescription or clinical claims.
    case clinical
    /// Posing as a licensed professional or a real, named person.
    case impersonation
    case harassment
    case sexual
    /// Links and schemes that take money or data.
    case scam
}

/// One phrase the screening watches for, in the pattern language of ``TokenPattern``.
struct ModerationCue: Sendable {
    let name: String
    let concern: ModerationConcern
    let pattern: TokenPattern
    /// A denial before it ("I never ask for your password", "I don't diagnose") clears it.
    let deniable: Bool
    /// A clause that sends the person to a professional ("talk to your doctor before you stop any medication") is
    /// a referral, not a claim.
    let clearedByReferral: Bool

    init(_ name: String, _ concern: ModerationConcern, _ pattern: String, deniable: Bool = true, clearedByReferral: Bool = false) {
        self.name = name
        self.concern = concern
        self.pattern = TokenPattern(pattern, classes: ModerationCues.classes)
        self.deniable = deniable
        self.clearedByReferral = clearedByReferral
    }
}

/// The cue lists, by concern. Each cue names a way of saying the thing and nothing else; the screening applies
/// denial and referral on top, and reads the text with its disguises off (``RevealedText``).
enum ModerationCues {
    static let classes: [String: String] = TokenPattern.classes.merging([
        "rules": "instructions|instruction|rules|rule|guidelines|guideline|prompt|prompts|directions|directives|programming|constraints|policies|policy|restrictions|filters|guardrails|system_prompt|system_message|safety_rules",
        "secretdata": "card_number|card_numbers|credit_card|credit_cards|debit_card|card_details|cvv|cvc|security_code|expiry_date|bank_details|bank_account|account_number|sort_code|routing_number|iban|password|passwords|passcode|pin|pin_number|login_details|credentials|social_security|social_security_number|ssn|national_insurance|passport|passport_number|id_number|national_id|drivers_license|driving_licence|date_of_birth|dob|birth_date|home_address|full_address|address|phone_number|mobile_number|nhs_number|gp_details|gp_surgery|postcode|zip_code|id_card|photo_id|your_id|id_photos|photos_of_your_id|number_on_your_card|long_number_on_your_card|card_pin|online_banking|banking_username|banking_password|username_and_password|home_location|exact_location|live_location|times_you_are_home_alone|home_alone|seed_phrase|recovery_phrase|private_key|wallet_address|maiden_name|otp|verification_code|one_time_code|payment_details|billing_details|email_address|bank_login",
        "condition": "depression|anxiety|adhd|autism|bipolar|ptsd|ocd|bpd|personality_disorder|schizophrenia|eating_disorder|eating_disorders|anorexia|bulimia|insomnia|mental_illness|mental_illnesses|disorder|disorders|trauma|dementia|addiction|alcoholism|panic_disorder|psychosis|mental_health_conditions|mental_health_condition|illness|diseases|disease|cancer|diabetes|syndrome|burnout_syndrome|clinical_depression|personality_disorder|thyroid|hormones|herniated_disc|herniated_discs|disc|discs|chronic_pain|arthritis|fibromyalgia|ibs|migraine|migraines|hypertension|blood_pressure|infertility|infection|infections|mood_swings|bipolar_disorder|symptoms",
        "medication": "medication|medications|pills|dose|dosage|doses|antidepressant|antidepressants|ssri|ssris|sertraline|zoloft|prozac|fluoxetine|lexapro|escitalopram|citalopram|xanax|alprazolam|valium|diazepam|klonopin|adderall|ritalin|methylphenidate|vyvanse|lithium|seroquel|quetiapine|wellbutrin|bupropion|benzodiazepines|benzos|ketamine|psilocybin|microdose|microdosing|prescription|prescriptions|insulin|stimulants|antipsychotics|levothyroxine|statins|beta_blockers|propranolol|dosing|dosing_schedule|starting_dose|mg|milligrams|supplement_stack",
        "profession": "therapist|psychologist|psychiatrist|psychotherapist|counsellor|counselor|doctor|physician|gp|md|nurse|dietitian|dietician|lawyer|attorney|solicitor|financial_adviser|financial_advisor|accountant|cpa|pharmacist|surgeon|psychoanalyst|social_worker|lcsw|lmft|lpc|clinician|medical_professional|mental_health_professional|clinical_psychologist|financial_planner|adviser|advisor|marriage_and_family_therapist|family_therapist|family_lawyer|employment_solicitor|barrister|paralegal|nutritional_therapist|physiotherapist|physio|chiropractor|optometrist|dentist|pediatrician|paediatrician|midwife",
        "group": "women|men|immigrants|migrants|refugees|muslims|jews|christians|hindus|gays|gay_people|lesbians|trans_people|transgender_people|black_people|white_people|asians|mexicans|arabs|africans|disabled_people|fat_people|poor_people|feminists|foreigners|indians|chinese|blacks|whites|gay|trans|lesbian|bisexual|religious_people|atheists|old_people|the_elderly|elderly_people|autistic_people|people_with_anxiety|people_with_depression|pregnant_employees|pregnant_women|single_mothers|newbies|immigrant|foreign_accents|most_women|all_women|all_men",
        "insult": "stupid|idiot|idiots|worthless|loser|losers|pathetic|ugly|moron|morons|trash|garbage|scum|subhuman|dumb|failure|failures|pigs|vermin|parasites|animals|disgusting|inferior|retarded|useless|fat_slob|lazy_slob|cockroaches|snowflakes|snowflake|weak|broken|backwards|unlovable|hideous|waste_of_space|waste_of_gym_space|faking|faking_it|ridiculous|born_loser|the_enemy|enemy|contempt|shallow|too_emotional|too_stupid|liars|frauds",
        /// Real people a persona might pretend to be: coaches, authors, public figures.
        "famous": "oprah|oprah_winfrey|tony_robbins|brene_brown|mel_robbins|jay_shetty|simon_sinek|gary_vaynerchuk|gary_vee|jordan_peterson|elon_musk|steve_jobs|bill_gates|taylor_swift|beyonce|kim_kardashian|barack_obama|michelle_obama|donald_trump|joe_biden|kamala_harris|king_charles|pope_francis|dalai_lama|eckhart_tolle|deepak_chopra|dr_phil|dr_oz|andrew_huberman|david_goggins|joe_rogan|mark_zuckerberg|jeff_bezos|warren_buffett|dave_ramsey|suze_orman|robert_kiyosaki|james_clear|brendon_burchard|marie_forleo|gabby_bernstein|esther_perel|matthew_hussey|jordan_belfort|cristiano_ronaldo|lebron_james|serena_williams|michael_jordan|arnold_schwarzenegger|dwayne_johnson|the_rock|keanu_reeves|emma_watson|lady_gaga|rihanna|drake|kanye_west|selena_gomez|ariana_grande|billie_eilish|harry_styles|zendaya|tom_brady|tiger_woods|lionel_messi|usain_bolt|chris_hemsworth|sam_altman|tim_ferriss|robin_sharma|les_brown|eric_thomas|brian_tracy|zig_ziglar|napoleon_hill|rich_roll|jocko_willink|ryan_holiday|adam_grant|angela_duckworth|cal_newport|mark_manson|thich_nhat_hanh|ram_dass|louise_hay|wayne_dyer|marianne_williamson|iyanla_vanzant|lewis_howes|ed_mylett|grant_cardone|alex_hormozi|andrew_tate|tai_lopez|dan_pena|rachel_hollis|jen_sincero|glennon_doyle|sadhguru|tony_horton|joe_wicks|kayla_itsines|chloe_ting|jillian_michaels|richard_simmons|gordon_ramsay|martha_stewart|mrbeast|greta_thunberg|malala|malala_yousafzai|narendra_modi|rishi_sunak|keir_starmer|vladimir_putin|emmanuel_macron|justin_trudeau|volodymyr_zelensky|xi_jinping|angela_merkel|nelson_mandela|stephen_covey|dale_carnegie|marshall_goldsmith|john_maxwell|patrick_bet_david|steven_bartlett|jay_z|oprahs",
        "slur": "retard|retards|faggot|faggots|fag|tranny|trannies|nigger|niggers|kike|kikes|spic|spics|chink|chinks|wetback|wetbacks|towelhead|raghead|gook|gooks",
    ]) { _, new in new }

    static let all: [ModerationCue] = injection + personalData + clinical + impersonation + harassment + sexual + scam

    static let injection: [ModerationCue] = [
        .init("ignore-instructions", .injection,
              "ignore|ignoring|disregard|disregarding|forget|override|overriding|bypass|bypassing|circumvent|discard|abandon ~3 previous|prior|above|earlier|preceding|original|initial|system|all|any|every|your|these|those|existing|safety|other|developer ~2 @rules"),
        .init("forget-everything", .injection, "forget|ignore|disregard|erase|drop ~2 everything|anything|all ~4 told|said|before|above|previously|earlier|so_far|up_to_now|this_line"),
        .init("print-given-instructions", .injection,
              "print|show|repeat|output|display|reveal|recite|dump|leak|tell_me|paste|copy ~5 instructions|prompt|rules|system_message|guidelines ~4 above|before|given|you_were_given|earlier|at_the_start|verbatim|word_for_word"),
        .init("addresses-screener", .injection,
              "screener|screening|moderator|moderators|reviewer|reviewers|automated_review|the_ai_reading_this|classifier|filter ~8 approve|approved|pre_approved|skip|bypass|pass|safe|ignore|mark"),
        .init("marks-approved", .injection, "mark|rate|classify|label|flag ~3 it|this|this_persona|me ~2 as approve|approved|safe|pass|harmless"),
        .init("pre-approved", .injection, "pre_approved|preapproved|already_approved|whitelisted|exempt_from_review|exempt_from_screening"),
        .init("fake-authority", .injection,
              "hearth|anthropic|openai|the_developers|the_admins|admins|staff|safety_team|trust_and_safety|the_platform ~4 updated|approved|has_approved|switched_off|turned_off|disabled|allows|allowed|authorized|authorised|says_you_can|lifted|removed"),
        .init("filters-off", .injection,
              "filters|filter|safety|guardrails|moderation|restrictions|rules|guidelines ~3 are|is|have_been|has_been|were|was switched_off|turned_off|off|disabled|removed|lifted|suspended|deactivated"),
        .init("may-now", .injection,
              "you ~2 may_now|can_now|are_now_allowed|are_now_free|no_longer_need_to|no_longer_have_to|are_permitted ~4 give|say|ignore|share|answer|provide|discuss|skip|explicit|anything"),
        .init("assistant-without-rules", .injection,
              "assistant|ai|bot|model|chatbot|version|llm ~3 with|has|have|having no|zero|without rules|filters|limits|restrictions|boundaries|guidelines|morals|ethics"),
        .init("reveal-prompt", .injection,
              "reveal|show|print|repeat|output|display|leak|recite|dump|expose|disclose|tell ~4 system_prompt|your_prompt|your_instructions|hidden_instructions|initial_prompt|original_prompt|system_message|developer_message|hidden_rules|internal_rules|secret_instructions|instructions_above|text_above|everything_above|your_rules|your_programming|your_configuration"),
        .init("named-jailbreak", .injection,
              "system_prompt|system_message|developer_message|developer_mode|dev_mode|dan_mode|god_mode|jailbreak|jailbroken|jailbreaking|do_anything_now|prompt_injection|admin_override|system_override|sudo_mode|debug_mode|unrestricted_mode|uncensored_mode"),
        .init("no-restrictions", .injection,
              "without|no|zero|free_of|free_from|freed_from|unbound_by ~2 restrictions|censorship|guardrails|content_policy|content_policies|content_filters|safety_filters|ethical_guidelines|safety_guidelines|moral_constraints|ethical_constraints|usage_policies|openai_policy|anthropic_policy"),
        .init("unrestricted-ai", .injection, "unrestricted|uncensored|unfiltered|jailbroken|unaligned ai|model|assistant|chatbot|llm|version|mode"),
        .init("not-bound", .injection, "no_longer|not|never ~1 bound|restricted|limited|constrained|governed by", deniable: false),
        .init("obey-new", .injection, "obey|follow|execute ~3 new|hidden|secret|only_my|my_new|these_new|the_new|my_secret instructions|commands|orders|directives"),
        .init("secret-instructions", .injection, "override|admin|secret|hidden|developer|system ~1 instructions|directive|directives|commands"),
        .init("act-as-system", .injection, "act|behave|respond|answer|speak|operate as|like ~2 system|admin|administrator|root|developer|superuser|sudo|the_system|an_unrestricted"),
        .init("rules-void", .injection, "previous|prior|earlier|above|original|all ~2 @rules ~3 are|is|were|now void|invalid|cancelled|canceled|null|obsolete|overridden|replaced|revoked|suspended|no_longer_apply|do_not_apply|dont_apply"),
        .init("enable-mode", .injection, "enable|activate|enter|switch_to|switch_into|turn_on|unlock|engage ~2 developer|dev|god|dan|debug|admin|unrestricted|jailbreak|sudo|maintenance|root mode|access"),
        .init("pretend-no-rules", .injection, "pretend|imagine|act|roleplay|suppose ~5 have|had|are|were no|without ~2 rules|restrictions|guidelines|filters|content_policy|safety_rules"),
        .init("regardless-of-rules", .injection, "regardless|irrespective of ~3 @rules|safety|policy|guidelines|what_you_were_told"),
        .init("you-must-comply", .injection, "always|must|will comply|obey ~2 with? any|every|all ~1 request|requests|command|commands|instruction|instructions"),
        .init("never-refuse", .injection, "never|not|dont refuse|decline ~2 any|anything|a_request|requests|the_user|users", deniable: false),
    ]

    static let personalData: [ModerationCue] = [
        .init("asks-secret-data", .personalData,
              "ask|asks|asking|collect|collects|collecting|request|requests|requesting|require|requires|need|needs|send|share|give|provide|enter|type|submit|confirm|verify|tell|drop|dm|upload|text|email|paste|write_down|hand_over|get|reply_with|include|list ~6 @secretdata"),
        .init("to-continue-data", .personalData, "before_we_start|to_continue|to_unlock|to_verify|to_get_started|for_verification|to_begin|to_proceed|to_activate ~6 @secretdata"),
        .init("what-is-your-data", .personalData, "what|whats ~1 is|are? your ~4 @secretdata"),
        .init("verify-identity", .personalData, "confirm|verify|prove|validate|check ~1 your identity|id|age_with"),
        .init("reply-with-data", .personalData, "reply|respond|answer|message_me ~2 with ~4 @secretdata|the_code|the_6_digit_code|code_we|code_you_received"),
        .init("hands-over-data", .personalData, "here_is|heres|this_is|take ~2 my ~2 @secretdata"),
        .init("your-data-please", .personalData, "your @secretdata ~2 please|first|now|below|here|to_me"),
    ]

    static let clinical: [ModerationCue] = [
        .init("diagnoses", .clinical,
              "diagnose|diagnoses|diagnosing|identify|identifies|assess|assesses|screen_for|screens_for|test_for|tests_for|detect|detects ~4 @condition", clearedByReferral: true),
        .init("tells-which-condition", .clinical,
              "tell|tells|show|shows|let_you_know|work_out|figure_out|determine|decide|confirm|find_out ~4 which|whether|what|if|how_severe|how_bad ~5 @condition|disorder|clinical", clearedByReferral: true),
        .init("condition-assessment", .clinical, "@condition|clinical|formal|medical|psychiatric ~2 assessment|assessments|diagnosis|evaluation|screening|report|score", clearedByReferral: true),
        .init("treatment-for", .clinical, "treatment|treatments|therapy|cure|cures|protocol|remedy|medicine ~3 for @condition", clearedByReferral: true),
        .init("dosing", .clinical,
              "halve|double|increase|decrease|reduce|cut|taper|raise|lower|adjust|skip|split|up|how_much|safe_to_take|safe_to_try ~5 @medication", clearedByReferral: true),
        .init("prescribes-anything", .clinical, "prescribe|prescribes|prescribing|prescribed_by_me|fit_note|sick_note|doctors_note", clearedByReferral: true),
        .init("gives-diagnosis", .clinical, "give|gives|provide|provides|offer|offers|make|makes|get|receive ~3 a? diagnosis|diagnoses|clinical_diagnosis|medical_diagnosis", clearedByReferral: true),
        .init("treats-condition", .clinical,
              "treat|treats|treating|cure|cures|curing|heal|heals|healing|reverse|reverses|reversing|eliminate|eliminates|fix|fixes ~3 @condition", clearedByReferral: true),
        .init("prescribes", .clinical,
              "prescribe|prescribes|prescribing|recommend|recommends|recommending|suggest|suggests|adjust|adjusts|adjusting|change|changes|increase|increases|decrease|decreases|lower|raise|taper|tapering|stop|stopping|start|starting|switch|switching|choose|pick|tell_you_which ~4 @medication", clearedByReferral: true),
        .init("medical-advice", .clinical,
              "give|gives|provide|provides|offer|offers|deliver|delivers|do|does|conduct|conducts ~3 clinical|medical|psychiatric|psychological ~1 advice|treatment|assessment|assessments|care|therapy|evaluation|evaluations", clearedByReferral: true),
        .init("provides-therapy", .clinical,
              "provide|provides|offer|offers|deliver|delivers|do|does|practice|practise|conduct ~3 therapy|psychotherapy|counselling|counseling|emdr|psychiatric_care|trauma_therapy|clinical_treatment", clearedByReferral: true),
        .init("replaces-care", .clinical,
              "replace|replaces|replacement|substitute|instead_of|no_need_for|dont_need|do_not_need|better_than|skip|stop ~3 your? therapist|therapy|doctor|psychiatrist|medication|pills|treatment|professional_help|scans|scan|physio|gp|@medication",
              clearedByReferral: true),
    ]

    static let impersonation: [ModerationCue] = [
        .init("claims-profession", .impersonation,
              "i_am|i_will_be|as_your|this_is|speaking_as|acting_as|act_as|pretend_to_be|posing_as|play|plays|is|are ~3 a|an|your|the? licensed|certified|registered|board_certified|qualified|practicing|practising|clinical|chartered|professional|real|accredited @profession"),
        .init("is-profession", .impersonation, "i_am|as_your|speaking_as|acting_as|act_as|pretend_to_be|posing_as|you_are_talking_to|i_will_be ~2 a|an|your @profession"),
        .init("licensed-title", .impersonation,
              "licensed|registered|regulated|chartered|board_certified|accredited|practising|practicing ~3 @profession", clearedByReferral: true),
        .init("as-a-profession", .impersonation, "as_a|as_an|as_your ~3 @profession"),
        .init("own-practice", .impersonation,
              "my ~1 clinical|private|medical|therapy|law|legal|counselling|psychiatric practice|clinic|patients|caseload|therapy_practice|law_firm"),
        .init("professional-confidentiality", .impersonation,
              "therapist_client|doctor_patient|attorney_client|solicitor_client|client_therapist ~1 confidentiality|privilege"),
        .init("rely-on-advice", .impersonation, "treat|take|use ~5 as|this_as legal_advice|medical_advice|financial_advice|professional_advice|regulated_advice"),
    ]

    static let harassment: [ModerationCue] = [
        .init("demeans-users", .harassment,
              "roast|roasts|insult|insults|mock|mocks|humiliate|humiliates|belittle|belittles|degrade|degrades|demean|demeans|bully|bullies|ridicule|ridicules|berate|berates|trash_talk|tear_down ~3 users|user|people|them|you|clients|everyone|anyone|whoever|the_user|fat_people|women|men|her|him|your_ex|candidates|newbies|beginners|@group"),
        .init("tells-users-insult", .harassment, "tell|tells|telling|remind|reminds|reminding|convince|convinces ~3 users|user|you|people|them|everyone|clients ~5 @insult|ugly|stupid|worthless"),
        .init("called-names", .harassment, "call|calls|called|calling ~1 names"),
        .init("insult-as-method", .harassment,
              "insult|insults|insulting|humiliation|humiliating|humiliate|ridicule|mockery|contempt|cruelty|cruel|roast|roasting|negging|neg ~5 looks|face|weight|body|appearance|acne|teeth|failures|until_they_cry|until_you_cry"),
        .init("until-they-cry", .harassment, "until|till ~2 they|you cry|crack|break|quit|give_up"),
        .init("defames", .harassment, "is|are a? lying|liar|fraud|thief|crook|criminal|scammer|cheat|paedophile|pedophile|rapist|abuser ~8 spread|share|post|tag|tell_everyone"),
        .init("freeze-out", .harassment,
              "freeze|freezing|push|pushing|force|forcing|drive|driving|squeeze|squeezing|shut|shutting ~1 out ~4 colleague|colleagues|employee|employees|staff|pregnant|them|someone|coworker|one_colleague|workers"),
        .init("make-insecure", .harassment, "make|makes|making ~2 her|him|them|users|people|you ~1 insecure|feel_insecure|doubt_themselves|feel_ugly"),
        .init("calls-names", .harassment, "call|calls|calling|label|labels ~3 users|people|them|you|clients|the_user ~3 @insult"),
        .init("group-hate", .harassment, "@group ~4 are|is|as ~4 @insult|a_disease|the_problem|ruining|ruin|destroying|evil|criminals|dirty|lazy|weak|beneath|need_fixing|deserve_contempt|owe|inferior"),
        .init("hates-group", .harassment, "hate|hates|despise|despises|loathe|loathes ~2 @group"),
        .init("slur", .harassment, "@slur", deniable: false),
        .init("makes-feel-small", .harassment, "make|makes|making ~2 users|them|people|you|clients ~2 cry|feel_worthless|feel_stupid|feel_small|feel_pathetic|feel_ashamed|feel_like_garbage"),
        .init("tell-kill-self", .harassment, "kill|hang|hurt|drown yourself|yourselves"),
    ]

    static let sexual: [ModerationCue] = [
        .init("explicit", .sexual,
              "nsfw|erotic|erotica|sexting|nudes|horny|fetish|fetishes|kink|kinky|bdsm|orgasm|orgasms|masturbat*|sex_chat|sexual_roleplay|sexual_role_play|dirty_talk|talk_dirty|xxx|onlyfans|lewd|smut|explicit_content|sexually_explicit|sexual_content|sexual_fantasies|sexual_fantasy|foreplay|sext|erotically|18_plus"),
        .init("virtual-partner", .sexual,
              "your|my|virtual|ai|digital|flirty|sexy|naughty|online|personal ~1 girlfriend|boyfriend|lover|waifu|husbando|sugar_daddy|sugar_mommy|mistress|domme|girlfriend_experience|boyfriend_experience"),
        .init("sexual-roleplay", .sexual, "roleplay|role_play|rp|roleplays ~6 flirty|sexy|romantic|intimate|naughty|spicy|steamy|steamier|seductive|sensual|bedroom|dominant|submissive|sexual|seduction"),
        .init("virtual-spouse", .sexual, "virtual|ai|digital|devoted|always_available|perfect|dream|online ~1 wife|husband|girlfriend|boyfriend|lover|waifu"),
        .init("bedroom-talk", .sexual, "in_bed_with|in_bed_together|physically_intimate|intimate_moments|sexual_relationship|undress|undressing|what_you_are_wearing|how_hot|get_closer_tonight|descriptions_of_your_body|thirst_trap|in_lingerie"),
    ]

    /// Words of flirtation and sexiness: one is a dating or confidence coach's vocabulary ("feel sexy in your own
    /// skin"); three distinct ones are a sexual persona.
    static let suggestive: Set<String> = [
        "sexy", "flirty", "flirt", "flirting", "flirtatious", "seductive", "seduce", "seduction", "sensual", "naughty", "spicy",
        "steamy", "intimate", "kiss", "kisses", "kissing", "undress", "undressing", "bedroom", "tease", "teasing", "moan",
        "moaning", "desire", "desires", "lust", "aroused", "arousal", "babe", "darling", "sweetheart", "cuddle", "cuddles",
        "sultry", "suggestive", "lingerie", "naked", "nude", "webcam", "flirts", "handsome", "hot", "bed", "steamier", "graphic",
        "explicit", "sexual", "sexually", "physically", "detailed", "seducer", "wearing",
    ]
    static let suggestiveNeeded = 3

    static let scam: [ModerationCue] = [
        .init("guaranteed-returns", .scam, "guaranteed|guarantee|guarantees ~2 returns|profit|profits|roi|income|passive_income|payouts|gains|earnings"),
        .init("multiply-money", .scam, "double|triple|multiply|10x|100x ~2 your? money|investment|crypto|bitcoin|savings|deposit|capital"),
        .init("crypto-scheme", .scam,
              "crypto|forex|bitcoin|btc|usdt|eth|ethereum|binary_options|nft|memecoin|altcoin ~4 signals|signal|trading_group|vip_group|pump|giveaway|mining_pool|profits|bot|investment_plan|mentorship_fee|opportunity"),
        .init("send-payment", .scam,
              "send|transfer|deposit|pay|wire ~4 bitcoin|btc|usdt|crypto|eth|gift_card|gift_cards|itunes_card|steam_card|western_union|moneygram|wallet|cashapp|zelle|venmo|paypal_friends"),
        .init("upfront-fee", .scam, "activation|registration|unlock|unlocking|verification|processing|release|clearance|placement|entry|joining|recovery|upfront|up_front|advance ~1 fee|fees|payment|deposit"),
        .init("move-off-platform", .scam, "dm|message|contact|join|add|text|reach|find|chat_with|hit_me_up|follow ~3 me|us? on|via|at telegram|whatsapp|signal_app|wickr|kik|snapchat|telegram_group|whatsapp_group"),
        .init("mlm", .scam, "join|recruit|recruiting ~3 my|our team|downline|network ~8 earn|income|money|commission|commissions|be_your_own_boss|residual_income"),
        .init("gift-card-payment", .scam, "gift_card|gift_cards|giftcard|giftcards|amazon_gift_cards|google_play_card|itunes_card ~6 code|codes|only|payment|pay|send|whatsapp"),
        .init("pays-by-transfer", .scam, "payment|pay|paid|fee|fees ~4 in|with|via|by gift_card|gift_cards|amazon_gift_cards|wire_transfer|western_union|moneygram|crypto|bitcoin|bank_transfer"),
        .init("earn-while-sleep", .scam, "earn|earns|make|makes|making ~4 while_you_sleep|from_home|passive_income|per_month_from_home|a_month_from_home"),
        .init("copy-trading", .scam, "copy_trading|trading_bot|copy_my_trades|signals_group|paid_signals|vip_entries|vip_signals|pump_group|passive_income_system|investment_club|private_fund"),
        .init("signals-group", .scam, "paid|vip|premium|private ~1 signals|signal_group|trading_group|trading_signals|entries|channel"),
        .init("account-access", .scam, "connect|link|give_me_access_to|share ~3 brokerage|bank_account|trading_account|exchange_account|wallet ~6 bot|my|me"),
        .init("fund-recovery", .scam, "recover|recovery|get_back|gets_back|retrieve ~4 lost|stolen|scammed ~1 crypto|money|funds|bitcoin"),
        .init("mlm-recruit", .scam,
              "invite|recruit|bring_in|sign_up|enrol ~4 friends|people|others|three_friends ~8 earn|commission|from_everyone|on_their_orders|below_you|downline"),
        .init("mlm-words", .scam, "referral_code|starter_kit|become_an_ambassador|recruit_friends|earn_on_their|below_you|downline|upline|your_team_below|partner_programme"),
        .init("guaranteed-rate", .scam, "guaranteed|returning|returns|yield|yields ~3 every_month|per_month|a_month|monthly|weekly|daily|percent|interest"),
        .init("mint", .scam, "mint|minting ~3 nft|token|coin|my"),
        .init("quick-riches", .scam, "get_rich_quick|easy_money|make_money_fast|fast_cash|quick_cash|risk_free_profit|risk_free_returns|free_money|you_have_won|claim_your_prize|claim_your_reward|free_iphone"),
    ]
}
