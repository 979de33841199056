import { render } from 'preact';
import { HubApp } from './app.js';
import '../styles.css';
import './hub.css';

const root = document.getElementById('app');
if (root) render(<HubApp />, root);
