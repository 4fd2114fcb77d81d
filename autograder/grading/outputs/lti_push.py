"""`autograder lti-push OUT`: each student's score per notebook into the LMS's gradebook, through LTI 1.3's Assignment and
Grade Services (AGS), for a class that opens the course from Canvas or Moodle (hub/lti.py, the README's LTI section).

    sudo .venv/hub-python/bin/autograder lti-push OUT [--hub /srv/transformer-hub] [--class FILE] [--dry-run]

The scores are nbgrader's gradebook's (OUT/gradebook.db, or --db-url / nbgrader_config.py's db_url, as `autograder
grade` wrote it): a score typed in formgrader's Manual Grading goes with the automatic ones. One line item per
notebook (resourceId ``<assignment>/<notebook>``, tag ``transformer-course``), found on the LMS or created once, then
reused; each score with its maximum, ``activityProgress`` Completed (the submission was collected and graded) and
``gradingProgress`` FullyGraded, or PendingManual where formgrader still has cells to grade by hand.

The LMS knows a student by its own id (the id_token's ``sub``), which the hub recorded at the student's launch
(HUB_DIR/lti/launches.json, with the course's AGS endpoint): a student who never opened the course from the LMS cannot
be sent, and is named. The OAuth 2 token and the service requests are PyLTI1p3's (ServiceConnector: a client assertion
signed with the tool's key, HUB_DIR/lti/tool-key.pem, root's only: run it as root on the hub's machine).

What was sent, and when, is kept in OUT/lti-push.json, written after each score: a second push sends nothing that is
unchanged (idempotent), a push stopped half-way (a network failure, Ctrl-C) resumes where it stopped, and --dry-run
says what would be sent, sending nothing. Exit status: 0 every score sent or unchanged, 1 some not sent (each named,
with why), 2 could not run.
"""
import json
import os
import time
from datetime import datetime, timezone
from pathlib import Path

from autograder import environment

RECORD = "lti-push.json"
TAG = "transformer-course"
SCOPES = ["https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
          "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly",
          "https://purl.imsglobal.org/spec/lti-ags/scope/score"]


class PushError(Exception):
    """The push cannot run (exit status 2)."""


def gradebook_scores(db_url):
    """[(student, assignment, notebook, score, max_score, needs_manual)] from nbgrader's gradebook at ``db_url``."""
    from nbgrader.api import Gradebook

    rows = []
    with Gradebook(db_url) as gradebook:
        for assignment in gradebook.assignments:
            for submission in assignment.submissions:
                for notebook in submission.notebooks:
                    rows.append((submission.student.id, assignment.name, notebook.name, float(notebook.score),
                                 float(notebook.max_score), bool(notebook.needs_manual_grade)))
    return sorted(rows)


def read_record(out):
    path = Path(out) / RECORD
    if not path.is_file():
        return {"lineitems": {}, "sent": {}, "runs": []}
    return json.loads(path.read_text(encoding="utf-8"))


def write_record(out, record):
    path = Path(out) / RECORD
    temporary = path.with_suffix(".json.tmp")
    temporary.write_text(json.dumps(record, indent=1, sort_keys=True), encoding="utf-8")
    os.replace(temporary, path)


def now():
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class Lms:
    """The LMS's AGS, through PyLTI1p3."""

    def __init__(self, spec, private_pem, lineitems_url, scopes):
        from jwcrypto.jwk import JWK
        from pylti1p3.assignments_grades import AssignmentsGradesService
        from pylti1p3.registration import Registration
        from pylti1p3.service_connector import ServiceConnector

        public_pem = JWK.from_pem(private_pem.encode()).export_to_pem().decode()
        registration = (Registration().set_issuer(spec["issuer"]).set_client_id(str(spec["client_id"]))
                        .set_auth_token_url(spec["token_url"]).set_tool_private_key(private_pem)
                        .set_tool_public_key(public_pem))
        if spec.get("token_audience"):
            registration.set_auth_audience(spec["token_audience"])
        self.ags = AssignmentsGradesService(ServiceConnector(registration),
                                            {"lineitems": lineitems_url, "scope": list(scopes)})

    def lineitem(self, assignment, notebook, maximum):
        """The notebook's line item: found by its resourceId, else created. Returns its id (URL)."""
        from pylti1p3.lineitem import LineItem

        item = (LineItem().set_resource_id(f"{assignment}/{notebook}").set_tag(TAG)
                .set_label(f"{assignment} ({notebook})").set_score_maximum(maximum))
        return self.ags.find_or_create_lineitem(item, find_by="resource_id").get_id()

    def send(self, lineitem_id, user_id, score, maximum, grading, stamp):
        from pylti1p3.grade import Grade
        from pylti1p3.lineitem import LineItem

        grade = (Grade().set_user_id(user_id).set_score_given(score).set_score_maximum(maximum).set_timestamp(stamp)
                 .set_activity_progress("Completed").set_grading_progress(grading))
        self.ags.put_grade(grade, LineItem({"id": lineitem_id}))


def service_error(error):
    response = getattr(error, "response", None)
    if response is not None:
        return f"HTTP {response.status_code}: {response.text[:200]}"
    return f"{type(error).__name__}: {error}"


def push(out, hub_dir, class_file, db_url=None, dry_run=False, log=print, lms_factory=Lms):
    """Send what changed; returns {"sent", "unchanged", "not_sent": {key: why}, "planned"} and keeps the record."""
    out, hub_dir = Path(out), Path(hub_dir)
    db_url = db_url or (f"sqlite:///{(out / 'gradebook.db').resolve()}" if (out / "gradebook.db").is_file() else None)
    if db_url is None:
        raise PushError(f"{out}: no gradebook.db (run `autograder grade SUBMITTED --out {out}` first, or give --db-url)")
    try:
        spec = json.loads(Path(class_file).read_text(encoding="utf-8")).get("lti")
    except (OSError, ValueError) as error:
        raise PushError(f"{class_file}: the class file cannot be read ({error})") from error
    if not spec:
        raise PushError(f"{class_file}: no lti section (the README's LTI section says what goes in it)")
    if not spec.get("token_url"):
        raise PushError(f"{class_file}: the lti section lacks token_url (the LMS's OAuth 2 token endpoint)")
    launches_file = hub_dir / "lti" / "launches.json"
    launches = json.loads(launches_file.read_text(encoding="utf-8")) if launches_file.is_file() else {}
    recent = sorted((v for v in launches.values() if v.get("lineitems")), key=lambda v: v.get("last_launch", ""))
    lineitems_url = spec.get("lineitems") or (recent[-1]["lineitems"] if recent else None)
    scopes = (recent[-1]["scope"] if recent and recent[-1].get("scope") else SCOPES)
    rows = gradebook_scores(db_url)
    record = read_record(out)
    result = {"sent": 0, "unchanged": 0, "not_sent": {}, "planned": []}
    lms = None
    key_file = hub_dir / "lti" / "tool-key.pem"
    try:
        private_pem = None if dry_run else key_file.read_text()
    except OSError as error:
        raise PushError(f"{key_file}: the tool's key cannot be read ({error.strerror}): run lti-push as root on the "
                        f"hub's machine, after the hub has started once with the lti section") from error
    started = time.monotonic()
    unreachable = None
    for student, assignment, notebook, score, maximum, manual in rows:
        key = f"{student}/{assignment}/{notebook}"
        grading = "PendingManual" if manual else "FullyGraded"
        who = launches.get(student)
        if not who or not who.get("sub"):
            result["not_sent"][key] = "never launched the course from the LMS (the hub knows no LMS id for them)"
            continue
        want = {"userId": who["sub"], "scoreGiven": score, "scoreMaximum": maximum, "gradingProgress": grading}
        before = record["sent"].get(key)
        if before and {k: before.get(k) for k in want} == want:
            result["unchanged"] += 1
            continue
        if unreachable:
            result["not_sent"][key] = unreachable
            continue
        if dry_run:
            result["planned"].append(f"{key}: {score:g} / {maximum:g} ({grading}) to LMS user {who['sub']}")
            continue
        if lineitems_url is None:
            result["not_sent"][key] = "no AGS endpoint known: nobody has launched the course with grades enabled"
            continue
        try:
            if lms is None:
                lms = lms_factory(spec, private_pem, lineitems_url, scopes)
            item_key = f"{assignment}/{notebook}"
            lineitem = record["lineitems"].get(item_key)
            if lineitem is None:
                lineitem = lms.lineitem(assignment, notebook, maximum)
                record["lineitems"][item_key] = lineitem
                write_record(out, record)
            stamp = now()
            lms.send(lineitem, who["sub"], score, maximum, grading, stamp)
        except Exception as error:  # the LMS refused this one (named; the others go on), or cannot be reached
            why = service_error(error)
            if getattr(error, "response", None) is not None:
                result["not_sent"][key] = f"the LMS refused it (not in the LMS's course?): {why}"
            else:  # the rest are not tried: the next push resumes here
                unreachable = f"the LMS could not be reached ({why}); the next push sends it"
                result["not_sent"][key] = unreachable
            continue
        record["sent"][key] = {**want, "lineitem": lineitem, "activityProgress": "Completed", "timestamp": stamp}
        write_record(out, record)
        result["sent"] += 1
    if not dry_run:
        record["runs"].append({"at": now(), "seconds": round(time.monotonic() - started, 2), "sent": result["sent"],
                               "unchanged": result["unchanged"], "not_sent": result["not_sent"]})
        write_record(out, record)
    return result


def main(args, say):
    """`autograder lti-push` (autograder/cli.py)."""
    hub_dir = Path(args.hub)
    class_file = Path(args.class_file) if args.class_file else hub_dir / "class.json"
    try:
        result = push(args.out, hub_dir, class_file, db_url=args.db_url, dry_run=args.dry_run, log=say)
    except PushError as error:
        say(f"autograder: {error}")
        return 2
    for line in result["planned"]:
        say(f"would send {line}")
    for key, why in sorted(result["not_sent"].items()):
        say(f"not sent: {key}: {why}")
    verb = "would send" if args.dry_run else "sent"
    count = len(result["planned"]) if args.dry_run else result["sent"]
    say(f"{verb} {count} score(s); {result['unchanged']} unchanged since the last push; {len(result['not_sent'])} not sent"
        + ("" if args.dry_run else f"; record in {Path(args.out) / RECORD}"))
    return 1 if result["not_sent"] else 0


def add_parser(commands):
    """The subcommand's arguments (registered by autograder/cli.py)."""
    parser = commands.add_parser(
        "lti-push", help="send each student's score per notebook to the LMS's gradebook (LTI 1.3 AGS)",
        epilog="exit status: 0 every score sent or unchanged, 1 some not sent (each named, with why), 2 could not run")
    parser.add_argument("out", type=Path, help="the --out folder of autograder grade (its gradebook.db)")
    parser.add_argument("--hub", default=environment.read("TRANSFORMER_HUB_DIR", "/srv/transformer-hub"),
                        help="the hub's folder (its lti/: the tool's key, the launches; default /srv/transformer-hub)")
    parser.add_argument("--class", dest="class_file", help="the class file with the lti section (default HUB/class.json)")
    parser.add_argument("--db-url", help="the gradebook (default OUT/gradebook.db)")
    parser.add_argument("--dry-run", action="store_true", help="say what would be sent; send nothing")
    parser.set_defaults(run=main)
    return parser

