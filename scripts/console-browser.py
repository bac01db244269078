#!/usr/bin/env python3
"""The web console in a real browser: Debian's chromium driven by Selenium against a real
`intake serve` on 127.0.0.1 (a throwaway SQLite database, or the PostgreSQL URL in
INTAKE_SERVER_DATABASE).

A coordinator signs in, reviews a record (has issues, with a comment: the collector's inbox shows
it), answers a referral, downloads an export and reads it, and switches to Arabic. Every page is
checked with axe-core (axe-selenium-python: no serious or critical violation) and parsed as HTML5
by html5lib in strict mode (any parse error fails), and kept as a screenshot in --screenshots.

usage: scripts/console-browser.py --intake .build/debug/intake --screenshots .build/console-screenshots
Exits non-zero, saying what failed, on the first failure.
"""
import argparse
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request

import html5lib
from axe_selenium_python import Axe
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

CHECKED = []
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Failure(Exception):
    pass


# A team name as the field writes them: Arabic letters, a space, '%', '/', '+' and a quote.
ODD_TEAM = "عيادة متنقلة 50% / B+ 'north'"


def xpath_literal(text):
    """`text` as an XPath string literal (it may hold both kinds of quote)."""
    if "'" not in text:
        return f"'{text}'"
    return "concat(" + ", \"'\", ".join(f"'{part}'" for part in text.split("'")) + ")"


def check(condition, message):
    if not condition:
        raise Failure(message)


def run(intake, env, *arguments, stdin=None):
    answer = subprocess.run([intake, *arguments], env=env, input=stdin, capture_output=True, text=True, cwd=ROOT)
    check(answer.returncode == 0, f"intake {' '.join(arguments)} failed: {answer.stderr.strip()}")
    return answer.stdout.strip()


def api(base, method, path, token, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method,
                                     headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    with urllib.request.urlopen(request) as answer:
        return json.load(answer)


class Console:
    def __init__(self, base, screenshots, downloads):
        self.base = base
        self.screenshots = screenshots
        options = webdriver.ChromeOptions()
        options.binary_location = os.environ.get("INTAKE_CHROMIUM", "/usr/bin/chromium")
        for flag in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1000", "--lang=en-GB"]:
            options.add_argument(flag)
        options.add_experimental_option("prefs", {"download.default_directory": downloads, "download.prompt_for_download": False})
        self.driver = webdriver.Chrome(service=Service(os.environ.get("INTAKE_CHROMEDRIVER", "/usr/bin/chromedriver")), options=options)
        self.checked = CHECKED
        self.visited = []

    def switch_language(self, path, code=None):
        """Clicks the header's button for the language `code` (the first one offered when None)."""
        self.open(path)
        self.click(self.driver.find_element(By.CSS_SELECTOR, "form[action='/console/language'] button" + (f"[lang='{code}']" if code else "")))

    def again_in_arabic(self):
        self.again_in("ar")

    def again_in(self, code):
        """Every page this browser checked, checked again in the language `code`, then back to English."""
        pages = [(name, path) for name, path in self.visited if "sign-in" not in path]
        self.switch_language(pages[0][1], code)
        html = self.driver.find_element(By.TAG_NAME, "html")
        check(html.get_attribute("lang") == code and html.get_attribute("dir") == ("rtl" if code == "ar" else "ltr"), f"the page speaks {code}")
        for name, path in pages:
            self.open(path)
            self.check_page(f"{name}-{code}")
        self.visited = []
        self.switch_language(pages[0][1], "en")

    def quit(self):
        self.driver.quit()

    def open(self, path):
        self.driver.get(self.base + path)

    def raw_html(self):
        """The page's HTML as the server sent it (not the browser's DOM), with the browser's cookies."""
        cookies = "; ".join(f"{c['name']}={c['value']}" for c in self.driver.get_cookies())
        request = urllib.request.Request(self.driver.current_url, headers={"Cookie": cookies})
        with urllib.request.urlopen(request) as answer:
            return answer.read().decode("utf-8")

    def check_page(self, name, posted=False):
        """The page at 1280 and at 390 pixels (a phone): accessibility, HTML5, the layout, and
        screenshots of both. A page answering a form (`posted`) cannot be asked for again: its DOM
        is parsed instead, and it is not visited again in the other language."""
        self.check_width(name, posted)
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
        try:
            self.check_width(name + "-390", posted)
            # A phone: nothing wider than the screen (wide tables scroll in their own box), and
            # the header leaves the page most of the screen.
            wide = self.driver.execute_script(
                "const w = document.documentElement.clientWidth;"
                "if (document.documentElement.scrollWidth <= w + 1) return null;"
                "const e = [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > w + 1 || e.getBoundingClientRect().left < -1)"
                ".filter(e => !e.closest('.scroll') || e.classList.contains('scroll')).slice(-3);"
                "return document.documentElement.scrollWidth + ' px wide: ' + e.map(e => e.tagName + '.' + e.className).join(', ');")
            check(wide is None, f"{name} at 390 px overflows the screen: {wide}")
            header = self.driver.execute_script("return document.querySelector('header.top').getBoundingClientRect().height / window.innerHeight")
            check(header < 0.25, f"{name} at 390 px: the header takes {header:.0%} of the screen")
        finally:
            self.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        if not posted:
            self.visited.append((name, self.driver.current_url[len(self.base):]))

    def check_width(self, name, posted):
        self.driver.save_screenshot(os.path.join(self.screenshots, name + ".png"))
        # Every chart's words inside its drawing (an Arabic page once drew its labels past the edge).
        outside = self.driver.execute_script(
            "return [...document.querySelectorAll('svg.chart')].flatMap(svg => { const v = svg.viewBox.baseVal;"
            " return [...svg.querySelectorAll('text')].filter(t => { const b = t.getBBox();"
            " return b.width === 0 || b.x < v.x - .5 || b.y < v.y - .5 || b.x + b.width > v.x + v.width + .5 || b.y + b.height > v.y + v.height + .5; })"
            ".map(t => t.textContent + ' at ' + Math.round(t.getBBox().x) + '..' + Math.round(t.getBBox().x + t.getBBox().width) + ' of ' + v.width); });")
        check(not outside, f"{name}: chart text outside its chart: {outside[:5]}")
        axe = Axe(self.driver)
        axe.inject()
        results = axe.run()
        serious = [v for v in results["violations"] if v.get("impact") in ("serious", "critical")]
        check(not serious, f"{name}: accessibility violations: " + "; ".join(
            f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}" for v in serious))
        html = "<!DOCTYPE html>" + self.driver.page_source if posted else self.raw_html()
        parser = html5lib.HTMLParser(strict=True)
        try:
            parser.parse(html)
        except Exception as error:  # html5lib raises ParseError with the position
            raise Failure(f"{name}: not valid HTML5: {error}")
        ids = re.findall(r'\sid="([^"]+)"', html)
        check(len(ids) == len(set(ids)), f"{name}: duplicate ids {sorted({i for i in ids if ids.count(i) > 1})}")
        check("<script>" not in html and not re.search(r"\son[a-z]+=", html), f"{name}: inline script")
        self.checked.append(name)

    def sign_in(self, username, password):
        self.open("/console/sign-in")
        self.driver.find_element(By.ID, "username").send_keys(username)
        self.driver.find_element(By.ID, "password").send_keys(password)
        self.click(self.driver.find_element(By.CSS_SELECTOR, "form.card button[type=submit]"))
        check("/console/sign-in" not in self.driver.current_url, f"{username} could not sign in: {self.driver.current_url}")

    def click(self, element):
        """Clicks what loads a new page, and waits for it (the old page's elements go stale)."""
        old = self.driver.find_element(By.TAG_NAME, "html")
        element.click()
        def gone(_):
            try:
                old.tag_name
                return False
            except Exception:  # stale, or the inspector no longer knows the node: the old page is gone
                return True
        WebDriverWait(self.driver, 15).until(gone)
        WebDriverWait(self.driver, 15).until(lambda d: d.execute_script("return document.readyState") == "complete")

    def submit(self, form_selector):
        self.click(self.driver.find_element(By.CSS_SELECTOR, form_selector + " button[type=submit]"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--intake", default=os.path.join(ROOT, ".build/debug/intake"))
    parser.add_argument("--screenshots", default=os.path.join(ROOT, ".build/console-screenshots"))
    parser.add_argument("--database", help="the server's database (a PostgreSQL URL); default: a SQLite file in a temporary folder")
    arguments = parser.parse_args()
    os.makedirs(arguments.screenshots, exist_ok=True)
    work = tempfile.mkdtemp(prefix="intake-console-")
    downloads = os.path.join(work, "downloads")
    os.makedirs(downloads)
    env = dict(os.environ)
    env["INTAKE_DATA_DIR"] = work
    env["INTAKE_SERVER_DATABASE"] = arguments.database or os.path.join(work, "server.sqlite")
    env["INTAKE_LANGUAGE"] = "en"
    intake = arguments.intake

    run(intake, env, "admin", "bootstrap", "--username", "admin", "--password-stdin", stdin="admin-password-1\n")
    run(intake, env, "admin", "team", "create", "clinic")
    for name, role, team in [("cora", "coordinator", "clinic"), ("fatima", "fieldworker", "clinic")]:
        run(intake, env, "admin", "user", "create", name, "--role", role, "--team", team, "--password-stdin", stdin=f"{name}-password-1\n")
    run(intake, env, "admin", "user", "create", "rita", "--role", "researcher", "--password-stdin", stdin="rita-password-1\n")
    run(intake, env, "admin", "user", "create", "omar", "--role", "fieldworker", "--password-stdin", stdin="omar-password-1\n")
    run(intake, env, "admin", "user", "create", "nadia", "--role", "fieldworker", "--password-stdin", stdin="nadia-password-1\n")
    run(intake, env, "admin", "publish", "refugee-health")
    run(intake, env, "admin", "team", "create", ODD_TEAM)
    server = subprocess.Popen([intake, "serve", "--port", "0"], env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    console = None
    try:
        base = None
        deadline = time.time() + 60
        while base is None and time.time() < deadline:
            line = server.stdout.readline()
            check(line != "" or server.poll() is None, "intake serve stopped before listening")
            match = re.search(r"Serving on (http://127\.0\.0\.1:\d+)", line)
            if match:
                base = match.group(1)
        check(base is not None, "intake serve did not say where it listens within 60 seconds")

        fatima = run(intake, env, "admin", "token", "create", "fatima")
        samples = os.path.join(work, "records.jsonl")
        run(intake, env, "sample", "--count", "4", "--seed", "5", "--collector", "fatima", "--output", samples)
        records = [json.loads(line) for line in open(samples, encoding="utf-8")]
        stored = api(base, "POST", "/v1/records/batch", fatima, {"records": records})
        check(all(r["outcome"] == "created" for r in stored["results"]), f"records not stored: {stored}")
        reviewed, referred = records[0]["id"].lower(), records[1]["id"].lower()
        # Screenings of which some open a follow-up case (a score or an illness that flags).
        screenings = os.path.join(work, "screenings.jsonl")
        run(intake, env, "sample", "--count", "12", "--seed", "17", "--collector", "fatima", "--output", screenings)
        more = api(base, "POST", "/v1/records/batch", fatima, {"records": [json.loads(line) for line in open(screenings, encoding="utf-8")]})
        check(all(r["outcome"] == "created" for r in more["results"]), f"screenings not stored: {more}")
        api(base, "POST", "/v1/referrals", fatima, {"recordId": referred, "toTeam": "clinic", "reason": "Needs a second look"})
        cora_token = run(intake, env, "admin", "token", "create", "cora")
        registered = api(base, "POST", "/v1/patients", cora_token, {"givenName": "Amina", "familyName": "Haddad", "dateOfBirth": "1990-05-01"})
        api(base, "PUT", f"/v1/patients/{registered['id']}/consent", cora_token, {"scope": "all_qualified_researchers", "method": "written"})

        console = Console(base, arguments.screenshots, downloads)
        console.open("/console/sign-in")
        console.check_page("sign-in")
        console.sign_in("cora", "cora-password-1")
        check(console.driver.current_url.endswith("/console/day"), f"a coordinator lands on the day: {console.driver.current_url}")
        check(console.driver.find_element(By.TAG_NAME, "h1").text == "The team's day", "the day's heading")
        console.check_page("day")

        # Cases: the team's open cases soonest due first, one case's timeline, closing it.
        opened, deadline = [], time.time() + 20
        while not opened and time.time() < deadline:
            opened = api(base, "GET", "/v1/cases", cora_token)["cases"]
            if not opened:
                time.sleep(0.5)
        check(opened, "a screening that flags opens a case (the case service)")
        case_id = opened[0]["id"]
        console.open("/console/cases")
        check(case_id in console.driver.page_source, "the case is listed")
        console.check_page("cases")
        console.click(console.driver.find_element(By.CSS_SELECTOR, f"a[href='/console/cases/{case_id}']"))
        check("opened the case" in console.driver.page_source, "the case's timeline")
        console.check_page("case")
        console.submit("form[action$='/status']")
        check("The case is updated." in console.driver.page_source and "closed the case" in console.driver.page_source, "the case is closed")

        console.open("/console/records?state=received")
        check(reviewed[:8] in console.driver.page_source, "the record waits for review")
        console.check_page("records")
        console.click(console.driver.find_element(By.CSS_SELECTOR, f"a[href='/console/records/{reviewed}']"))
        console.check_page("record")
        console.driver.find_element(By.CSS_SELECTOR, "input[name=state][value=has_issues]").click()
        console.driver.find_element(By.ID, "comment").send_keys("Weight of 680 kg? Check the scale entry.")
        console.submit("form[action$='/review']")
        check("Has issues" in console.driver.find_element(By.ID, "review-heading").text, "the review is saved")
        check("Weight of 680 kg?" in console.driver.page_source, "the comment is in the thread")
        console.check_page("record-reviewed")

        # The collector's inbox says so, in the API and in their own console.
        told = api(base, "GET", "/v1/notifications", fatima)["notifications"]
        check(any(n["type"] == "review_has_issues" and n["subject"].get("record") == reviewed for n in told), f"fatima's inbox: {told}")
        check(all("680" not in json.dumps(n) for n in told), "a notification never carries the comment")

        # Live: the field worker refers another record to the team (the API); the open page hears
        # of it over the notification stream, says so and refreshes the badge.
        console.open("/console/day")
        badge = console.driver.find_element(By.CSS_SELECTOR, "[data-badge='unread']").text
        time.sleep(1)  # the page's stream is open
        api(base, "POST", "/v1/referrals", fatima, {"recordId": records[2]["id"].lower(), "toTeam": "clinic", "reason": "Follow-up"})
        WebDriverWait(console.driver, 15).until(lambda d: d.find_element(By.ID, "live").is_displayed())
        WebDriverWait(console.driver, 15).until(lambda d: d.find_element(By.CSS_SELECTOR, "[data-badge='unread']").text != badge)

        console.open("/console/referrals")
        console.check_page("referrals")
        console.click(console.driver.find_element(By.CSS_SELECTOR, "form[action$='/accept'] button"))
        check("The referral is updated." in console.driver.page_source and "Accepted" in console.driver.page_source, "the referral is accepted")

        console.open("/console/inbox")
        console.check_page("inbox")

        # The team: invite a member, the passcode shown once.
        console.open("/console/team")
        console.check_page("team")
        console.driver.find_element(By.ID, "invitee").send_keys("omar")
        console.submit("form[action$='/invitations']")
        passcode = console.driver.find_element(By.CSS_SELECTOR, ".passcode strong").text
        check(re.fullmatch(r"[0-9A-Za-z-]{6,}", passcode) is not None or len(passcode) >= 6, f"the passcode is shown: {passcode!r}")
        console.check_page("team-invited", posted=True)
        console.open("/console/team")
        check(passcode not in console.driver.page_source, "the passcode is shown once")

        # The registry: a patient found by name (a form, not an address), their consent.
        console.open("/console/patients")
        console.check_page("patients")
        console.driver.find_element(By.ID, "name").send_keys("Haddad")
        console.submit("form[action='/console/patients']")
        check("/console/patients" == console.driver.current_url[len(base):] and "Haddad" in console.driver.page_source, "the patient is found")
        console.click(console.driver.find_element(By.CSS_SELECTOR, "a[href^='/console/patients/']"))
        check("All qualified researchers" in console.driver.page_source and "Written" in console.driver.page_source, "the consent history, in words")
        console.check_page("patient")

        # Questionnaires: versions, a preview, publishing a draft from the folder's files.
        console.open("/console/questionnaires")
        console.check_page("questionnaires")
        console.click(console.driver.find_element(By.CSS_SELECTOR, "a[href^='/console/questionnaires/refugee-health/']"))
        check("Demographics" in console.driver.page_source, "a version's sections")
        console.check_page("questionnaire")
        console.open("/console/questionnaires")
        folder = os.path.join(ROOT, "Questionnaires", "refugee-health")
        paths = "\n".join(os.path.join(folder, f) for f in sorted(os.listdir(folder)))
        console.driver.find_element(By.ID, "folder").send_keys(paths)
        data = os.path.join(ROOT, "Data")
        console.driver.find_element(By.ID, "lists").send_keys("\n".join(os.path.join(data, f) for f in sorted(os.listdir(data)) if f.endswith(".txt")))
        console.submit("form[action='/console/questionnaires']")
        said = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", console.driver.page_source))[:800]
        check("The version is stored." in console.driver.page_source, f"published from the files: {console.driver.current_url}: {said}")

        console.open("/console/exports")
        console.check_page("exports")
        console.driver.find_element(By.CSS_SELECTOR, "input[name=reviewState][value=has_issues]").click()
        # A download: the page stays.
        console.driver.find_element(By.CSS_SELECTOR, "form[action='/console/exports'] button[type=submit]").click()
        archive = None
        deadline = time.time() + 30
        while archive is None and time.time() < deadline:
            done = [f for f in os.listdir(downloads) if f.endswith(".tar")]
            archive = os.path.join(downloads, done[0]) if done else None
            time.sleep(0.2)
        check(archive is not None, "the export archive did not download")
        with tarfile.open(archive) as tar:
            names = tar.getnames()
            csv = tar.extractfile([n for n in names if n.endswith("/records.csv")][0]).read().decode("utf-8")
        rows = csv.strip().split("\r\n")
        check(len(rows) == 2 and "review_state" in rows[0] and reviewed in rows[1] and "has_issues" in rows[1],
              f"the export holds the one record with issues: {rows[:2]}")

        # Every page again in Arabic, and in French, at both widths.
        visited = list(console.visited)
        console.again_in_arabic()
        console.visited = visited
        console.again_in("fr")
        console.switch_language("/console/day", "fr")
        check(console.driver.find_element(By.TAG_NAME, "h1").text == "La journée de l'équipe", "the day's heading in French")
        console.switch_language("/console/day", "en")
        console.switch_language("/console/day")
        html = console.driver.find_element(By.TAG_NAME, "html")
        check(html.get_attribute("dir") == "rtl" and html.get_attribute("lang") == "ar", "Arabic is right to left")
        check(console.driver.find_element(By.TAG_NAME, "h1").text == "يوم الفريق", "the day's heading in Arabic")

        # The field worker sees it in their console, in English (their browser's choice).
        console.quit()
        console = Console(base, arguments.screenshots, downloads)
        console.sign_in("fatima", "fatima-password-1")
        console.open("/console/inbox")
        check("says your record" in console.driver.page_source and reviewed[:8] in console.driver.page_source, "fatima's console inbox")
        console.check_page("inbox-fieldworker")
        console.again_in_arabic()

        # An admin: users, teams, the audit trail verified.
        console.quit()
        console = Console(base, arguments.screenshots, downloads)
        console.sign_in("admin", "admin-password-1")
        console.open("/console/admin")
        check("Verified:" in console.driver.page_source, "the audit trail is verified")
        console.check_page("admin")
        # A team whose name has Arabic letters, a space, '%', '/', '+' and a quote: reached from the
        # admin's list and its own page, as every route that names it (tests in Swift do the API's).
        team_link = console.driver.find_element(By.XPATH, f"//a[normalize-space(.)={xpath_literal(ODD_TEAM)}]")
        console.click(team_link)
        check(ODD_TEAM in console.driver.find_element(By.TAG_NAME, "h1").text, f"the team's page: {console.driver.current_url}")
        console.check_page("team-odd-name")
        console.driver.find_element(By.ID, "invitee").send_keys("nadia")
        console.submit("form[action$='/invitations']")
        check(console.driver.find_elements(By.CSS_SELECTOR, ".passcode strong"), f"invited to {ODD_TEAM!r}: {console.driver.current_url}")
        console.open("/console/admin/audit")
        check("sign_in" in console.driver.page_source, "the audit trail's events are listed")
        console.check_page("audit")
        console.again_in_arabic()

        # A researcher: exports only, de-identified.
        console.quit()
        console = Console(base, arguments.screenshots, downloads)
        console.sign_in("rita", "rita-password-1")
        check(console.driver.current_url.endswith("/console/exports"), "a researcher lands on exports")
        console.check_page("exports-researcher")
        console.again_in_arabic()
        console.open(f"/console/records/{reviewed}")
        check("Your role" in console.driver.page_source or "forbidden" in console.driver.page_source.lower() or "not" in console.driver.page_source,
              "a researcher does not read records")
        print(f"console-browser: {len(CHECKED)} pages checked in chromium (axe, HTML5, screenshots in {arguments.screenshots}): "
              "sign-in, the day, cases, review, inbox, referral, team and invitation, registry, questionnaires and publishing, export, Arabic, field worker, admin, researcher")
    except Failure as failure:
        print(f"console-browser: FAILED: {failure}", file=sys.stderr)
        return 1
    except Exception as error:  # a page without what the step looks for: say where
        where = console.driver.current_url if console else "before the browser started"
        page = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", console.driver.page_source))[:600] if console else ""
        print(f"console-browser: FAILED at {where}: {type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}\n  the page says: {page}",
              file=sys.stderr)
        return 1
    finally:
        if console:
            console.quit()
        server.terminate()
        server.wait(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
